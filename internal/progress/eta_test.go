package progress

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// clock is a test's clock, moved by hand.
type clock struct{ t time.Time }

func (c *clock) now() time.Time       { return c.t }
func (c *clock) step(d time.Duration) { c.t = c.t.Add(d) }
func newClock() *clock                { return &clock{t: time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)} }
func plainBar(w *bytes.Buffer, total int, c *clock) *Bar {
	return newClocked(w, false, total, "work", c.now)
}

// lastLine is the last line b printed.
func lastLine(buf *bytes.Buffer) string {
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	return lines[len(lines)-1]
}

// At a steady pace the ETA is the work left over that pace, printed on
// the plain lines; before 5 % of the work (or 3 s) there is none.
func TestETASteadyPace(t *testing.T) {
	var buf bytes.Buffer
	c := newClock()
	b := plainBar(&buf, 1000, c)
	// 2 units a second: 1000 units take 500 s.
	for i := 1; i <= 40; i++ {
		c.step(time.Second)
		if err := b.Set(2 * i); err != nil {
			t.Fatal(err)
		}
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	// Lines at 10 s (20 units: 2 %, no ETA), 20 s (40: 4 %, none), 30 s
	// (60 units: 6 %, 470 s left) and 40 s (80 units: 460 s left).
	want := []string{
		"work: 20/1000 (2%) 10s",
		"work: 40/1000 (4%) 20s",
		"work: 60/1000 (6%) 30s, ETA 7m50s",
		"work: 80/1000 (8%) 40s, ETA 7m40s",
	}
	if fmt.Sprint(lines) != fmt.Sprint(want) {
		t.Errorf("lines:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	if got := lastLine(&buf); got != "work: 80/1000 (8%) 40s done" {
		t.Errorf("the last line %q: want no ETA on it", got)
	}
}

// The smoothed rate follows a change of pace within a minute or two,
// where the mean since the start would still be far off; a burst of
// units within one sampling second makes one sample.
func TestETAFollowsAChangeOfPace(t *testing.T) {
	var buf bytes.Buffer
	c := newClock()
	b := plainBar(&buf, 10000, c)
	done := 0
	for range 100 { // 10 units a second for 100 s
		c.step(time.Second)
		done += 10
		b.Set(done)
	}
	// Then 1 unit a second, delivered in bursts of 5 every 5 s.
	for range 40 {
		for range 5 {
			done++
			b.Set(done)
		}
		c.step(5 * time.Second)
	}
	c.step(0)
	left, ok := b.eta.left(c.now(), done, 10000)
	if !ok {
		t.Fatal("no ETA after 300 s and 12 % of the work")
	}
	// 8800 units at 1 a second: 8800 s; the mean since the start (1200
	// units in 300 s) would say 2200 s.
	if got := left.Seconds(); got < 7000 || got > 9500 {
		t.Errorf("ETA %.0f s at 1 unit a second with 8800 left: want near 8800 s (the mean since the start says 2200)", got)
	}
}

// No total, no ETA; and none once the work is done.
func TestETANotWithoutTotal(t *testing.T) {
	var buf bytes.Buffer
	c := newClock()
	b := plainBar(&buf, 0, c)
	for i := 1; i <= 30; i++ {
		c.step(time.Second)
		b.Set(i)
	}
	if strings.Contains(buf.String(), "ETA") {
		t.Errorf("a bar with no total printed an ETA: %q", buf.String())
	}
	b.SetTotal(60)
	c.step(10 * time.Second)
	b.Set(40)
	if got := lastLine(&buf); !strings.HasSuffix(got, ", ETA 20s") {
		t.Errorf("once its total is known (40 of 60 at 1 a second): %q, want an ETA of 20 s", got)
	}
	c.step(10 * time.Second)
	b.Set(60)
	if got := lastLine(&buf); strings.Contains(got, "ETA") {
		t.Errorf("the work is done: %q has an ETA", got)
	}
}

// The terminal bar carries the ETA after its description, and drops it
// when it finishes.
func TestETAOnTheTerminalBar(t *testing.T) {
	var buf bytes.Buffer
	c := newClock()
	b := newClocked(&buf, true, 100, "train", c.now)
	for i := 1; i <= 10; i++ {
		c.step(time.Second)
		b.Describe(fmt.Sprintf("train step %d", i))
		b.Set(i)
	}
	if b.shown != "train step 10, ETA 1m30s" {
		t.Errorf("the bar shows %q, want its description and the ETA of 90 units at 1 a second", b.shown)
	}
	b.Finish()
	if b.shown != "train step 10" {
		t.Errorf("the finished bar shows %q, want no ETA", b.shown)
	}
}

func TestETAText(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0:                                     "0s",
		40*time.Second + 400*time.Millisecond: "40s",
		59*time.Second + 600*time.Millisecond: "1m00s",
		3*time.Minute + 14*time.Second:        "3m10s",
		59*time.Minute + 57*time.Second:       "1h00m",
		2*time.Hour + 4*time.Minute + 40*time.Second: "2h05m",
	} {
		if got := etaText(d); got != want {
			t.Errorf("etaText(%s) = %q, want %q", d, got, want)
		}
	}
}
