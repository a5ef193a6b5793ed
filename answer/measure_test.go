package answer

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestMeasureBeforeAfter prints the time and allocation of one Read (gsm8k,
// critic on, as the importer reads) of the shapes issue 20 reported, by the
// reader before the caps (the ref-prefixed copy) and by Read, side by side. It
// measures, it asserts nothing: run it with MPDF_MEASURE=1.
func TestMeasureBeforeAfter(t *testing.T) {
	if os.Getenv("MPDF_MEASURE") == "" {
		t.Skip("set MPDF_MEASURE=1 to measure")
	}
	const limit = 60 * time.Second
	cases := []struct {
		name string
		text string
	}{
		{"1 MB of digits", strings.Repeat("7", 1<<20)},
		{`"1="×520,000`, strings.Repeat("1=", 520_000)},
		{`\boxed{` + "×1,000", strings.Repeat(`\boxed{`, 1000)},
		{`\boxed{` + "×2,000", strings.Repeat(`\boxed{`, 2000)},
		{`\boxed{` + "×4,000", strings.Repeat(`\boxed{`, 4000)},
		{`\boxed{` + "×10,000", strings.Repeat(`\boxed{`, 10000)},
		{`\boxed{` + "×15,000", strings.Repeat(`\boxed{`, 15000)},
	}
	measure := func(read func(string)) func(string) (time.Duration, uint64, bool) {
		return func(text string) (time.Duration, uint64, bool) {
			done := make(chan struct{})
			var d time.Duration
			var alloc uint64
			go func() {
				var a, b runtime.MemStats
				runtime.ReadMemStats(&a)
				t0 := time.Now()
				read(text)
				d = time.Since(t0)
				runtime.ReadMemStats(&b)
				alloc = b.TotalAlloc - a.TotalAlloc
				close(done)
			}()
			select {
			case <-done:
				return d, alloc, true
			case <-time.After(limit):
				return limit, 0, false // the goroutine runs on; the process ends soon
			}
		}
	}
	before := measure(func(s string) {
		refRead(refGSM8K, s, refOptions{refCritic: true})
	})
	after := measure(func(s string) { Read(GSM8K, s, Options{Critic: true}) })
	fmt.Printf("%-22s %10s %14s %12s %14s\n", "text", "before", "before alloc", "after", "after alloc")
	for _, c := range cases {
		da, aa, _ := after(c.text)
		db, ab, ok := before(c.text)
		bs, bas := db.Round(time.Millisecond).String(), fmt.Sprintf("%.1f MB", float64(ab)/1e6)
		if !ok {
			bs, bas = "> "+limit.String(), "?"
		}
		fmt.Printf("%-22s %10s %14s %12s %14s\n", c.name, bs, bas, da.Round(10*time.Microsecond), fmt.Sprintf("%.1f MB", float64(aa)/1e6))
		if !ok {
			break // the stuck reference still runs: later figures would be skewed
		}
	}
}
