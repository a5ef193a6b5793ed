package serve

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The memory budget is a property of a process (its peak resident set), so
// it is tested on one: the test binary re-runs itself as the server
// (TestServeChild), and the parent sends it the worst valid shapes.

const childEnv = "MPDF_SERVE_TEST_CHILD"

// TestServeChild is the server process of TestServeMemoryBudget: skipped
// unless run as one. It serves the policy in $MPDF_SERVE_TEST_CHILD with
// the memory budget in $MPDF_SERVE_TEST_MEMORY (bytes; 0 = the default),
// tuning the runtime as mpdf serve does, until its standard input closes.
func TestServeChild(t *testing.T) {
	path := os.Getenv(childEnv)
	if path == "" {
		t.Skip("the server process of TestServeMemoryBudget")
	}
	mem, _ := strconv.ParseInt(os.Getenv("MPDF_SERVE_TEST_MEMORY"), 10, 64)
	cfg := Config{PolicyPath: path, MaxMemory: mem, Critic: os.Getenv("MPDF_SERVE_TEST_CRITIC") != ""}
	cfg.TuneRuntime()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("listening on http://%s\n", ln.Addr())
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		io.Copy(io.Discard, os.Stdin)
		cancel()
	}()
	if err := s.Serve(ctx, ln); err != nil {
		t.Fatal(err)
	}
}

// serverProcess starts the server process with memory budget mem (bytes;
// 0 = the default) and returns its URL and PID; the process ends with the
// test.
func serverProcess(t *testing.T, mem int64, critic bool) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeChild$", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+writeTestPolicy(t), "MPDF_SERVE_TEST_MEMORY="+strconv.FormatInt(mem, 10), "GOMEMLIMIT=", "GOGC=")
	if critic {
		cmd.Env = append(cmd.Env, "MPDF_SERVE_TEST_CRITIC=1")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		if url, ok := strings.CutPrefix(sc.Text(), "listening on "); ok {
			go io.Copy(io.Discard, stdout)
			return url, cmd.Process.Pid
		}
	}
	t.Fatalf("the server process did not start: %v", sc.Err())
	return "", 0
}

// procStatus reads a field of /proc/PID/status in bytes (VmHWM: the peak
// resident set; VmRSS: the current one).
func procStatus(t *testing.T, pid int, field string) int64 {
	t.Helper()
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", field, pid)
	return 0
}

// shape is a request body of a kind that costs memory its own way.
type shape struct {
	name string
	body []byte
}

// worstShapes are valid requests of up to 1 MiB (the default body limit)
// that cost the most memory per body byte, each in its own way.
func worstShapes() []shape {
	const limit = 1 << 20
	var b bytes.Buffer
	b.WriteString(`{"deliberations":[`)
	agents := `{"round":1,"rounds":1,"agents":[` + strings.Repeat(`{},`, 63) + `{}]}`
	for i := range MaxDeliberations {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(agents)
	}
	b.WriteString(`]}`)
	return []shape{
		// The most agents a body can hold: 4096 deliberations of 64 {}.
		{"4096x64 empty agents", bytes.Clone(b.Bytes())},
		// An answer that needs escaping, repeated in the response as every
		// other agent's concede target and the team answer, as long as the
		// response bound (MaxResponseBytes) lets it be.
		{"160 KB answer echoed 65 times", []byte(`{"round":1,"rounds":1,"agents":[{"answer":"` + strings.Repeat("<", 160_000) + `"}` + strings.Repeat(`,{}`, 63) + `]}`)},
		// One text of ~1 MiB that the answer reader works hardest on.
		{"1 MiB text 1=", textBody(strings.Repeat("1=", (limit-200)/2))},
	}
}

// textBody is a request whose first agent's text is text (JSON-safe).
func textBody(text string) []byte {
	return []byte(`{"kind":"gsm8k","round":1,"rounds":1,"agents":[{"text":"` + text + `"},{"answer":"1"}]}`)
}

// textShapes are ~1 MiB texts in the shapes the answer reader and the
// critic work hardest on (answer's TestReadWorkLinear has them all).
func textShapes() []shape {
	const limit = 1<<20 - 200
	return []shape{
		{"1 MiB text 1=", textBody(strings.Repeat("1=", limit/2))},
		{"1 MiB text of boxes", textBody(strings.Repeat(`\\boxed{`, limit/9))},
		{"1 MiB text of digits", textBody(strings.Repeat("1", limit))},
		{"1 MiB text of confidences", textBody(strings.Repeat(`Confidence: 0.5\n`, limit/17))},
		{"1 MiB text of sums", textBody(strings.Repeat("12+34=46 ", limit/9))},
	}
}

// reserved reads the server's reserved memory from /metrics.
func reserved(t *testing.T, url string) float64 {
	t.Helper()
	_, b := get(t, url+"/metrics")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "mpdf_serve_memory_reserved_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				t.Fatal(err)
			}
			return f
		}
	}
	t.Fatalf("no mpdf_serve_memory_reserved_bytes in /metrics")
	return 0
}

// waitIdle waits until the server holds no memory for requests: the work
// of requests answered at their deadline may go on a while.
func waitIdle(t *testing.T, url string) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); reserved(t, url) != 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server still holds %v bytes of its budget", reserved(t, url))
		}
	}
}

// send posts body n times at once and returns the count of each status
// (0: none), the error bodies by status and the largest response.
func send(t *testing.T, url string, body []byte, n int) (codes map[int]int, errs map[int]string, largest int64) {
	t.Helper()
	client := &http.Client{Timeout: 2 * time.Minute}
	codes, errs = map[int]int{}, map[int]string{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, size, head := 0, int64(0), ""
			resp, err := client.Post(url+"/v1/decide", "application/json", bytes.NewReader(body))
			if err == nil {
				var hb bytes.Buffer
				size, err = io.Copy(&hb, io.LimitReader(resp.Body, 512))
				if err == nil {
					var m int64
					m, err = io.Copy(io.Discard, resp.Body)
					size += m
				}
				resp.Body.Close()
				code, head = resp.StatusCode, hb.String()
				if code == http.StatusServiceUnavailable && resp.Header.Get("Retry-After") == "" {
					t.Errorf("503 without Retry-After: %s", head)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				t.Errorf("status %d, then: %v", code, err)
			}
			codes[code]++
			if code != http.StatusOK {
				errs[code] = head
			}
			largest = max(largest, size)
		}()
	}
	wg.Wait()
	return codes, errs, largest
}

// TestRequestCostBounds: the memory estimate of each worst shape
// (requestCost) bounds what serving one request of it adds to a fresh
// server process's peak resident set, garbage collector's slack included.
func TestRequestCostBounds(t *testing.T) {
	if raceEnabled {
		t.Skip("the server process is this race-instrumented binary: its RSS is the detector's shadow memory, not the server's")
	}
	if testing.Short() {
		t.Skip("runs server processes")
	}
	shapes := worstShapes()
	texts := textShapes()
	all := append(append(shapes[:len(shapes)-1:len(shapes)-1], texts...), texts...)
	for i, sh := range all {
		critic := i >= len(all)-len(texts) // the texts again, read with the critic
		if critic {
			sh.name += ", critic"
		}
		var mem int64 // the default budget; with the critic, one to admit it
		if critic {
			mem = 2 << 30
		}
		url, pid := serverProcess(t, mem, critic)
		if code, _ := post(t, url+"/v1/decide", []byte(`{"round":1,"rounds":1,"agents":[{},{}]}`)); code != 200 {
			t.Fatalf("warm-up: %d", code)
		}
		before := procStatus(t, pid, "VmHWM")
		start := time.Now()
		codes, errs, largest := send(t, url, sh.body, 1)
		elapsed := time.Since(start)
		waitIdle(t, url)
		peak := procStatus(t, pid, "VmHWM") - before
		st, _ := checkBody(sh.body)
		est := requestCost(len(sh.body), st, critic)
		t.Logf("%s (%d KiB): %v %v in %v, response %d KiB; peak RSS +%d MiB (%.0f × the body), estimate %d MiB",
			sh.name, len(sh.body)>>10, codes, errs, elapsed.Round(time.Millisecond), largest>>10, peak>>20, float64(peak)/float64(len(sh.body)), est>>20)
		if peak > est {
			t.Errorf("%s: one request raised the peak RSS by %d MiB, more than its estimate %d MiB", sh.name, peak>>20, est>>20)
		}
	}
}

// TestServeMemoryBudget: 16 of each worst shape sent at once to a real
// server process with the default budget (512 MiB) get a status each
// (200; 503 with Retry-After when the budget is full or the request
// timeout passes), and the process's peak resident set stays under the
// budget.
func TestServeMemoryBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the server process is this race-instrumented binary: its RSS is the detector's shadow memory, not the server's")
	}
	if testing.Short() {
		t.Skip("runs a server process and sends it ~50 MiB of requests")
	}
	const budget = defaultMaxMemory
	url, pid := serverProcess(t, 0, false)
	for _, sh := range worstShapes() {
		start := time.Now()
		codes, errs, largest := send(t, url, sh.body, 16)
		hwm := procStatus(t, pid, "VmHWM")
		t.Logf("%s (%d KiB): %v in %v, largest response %d MiB; peak RSS so far %d MiB, now %d MiB",
			sh.name, len(sh.body)>>10, codes, time.Since(start).Round(time.Millisecond), largest>>20, hwm>>20, procStatus(t, pid, "VmRSS")>>20)
		for code, e := range errs {
			t.Logf("%s: %d: %s", sh.name, code, e)
		}
		for code := range codes {
			if code != http.StatusOK && code != http.StatusServiceUnavailable {
				t.Errorf("%s: status %d", sh.name, code)
			}
		}
		if hwm > budget {
			t.Errorf("%s: peak RSS %d MiB, over the %d MiB budget", sh.name, hwm>>20, budget>>20)
		}
		waitIdle(t, url)
	}
}

// TestBodyCost: what the fast path allocates decoding the worst shapes,
// before the request's estimate is known, stays within bodyCost; and the
// fast path measures the text shape's text as the walk does.
func TestBodyCost(t *testing.T) {
	for _, sh := range worstShapes() {
		var ms0, ms1 runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms0)
		st, _, ok := decodeFast(sh.body, new(DecideRequest), new(arena))
		runtime.ReadMemStats(&ms1)
		if !ok {
			t.Fatalf("%s: the fast path declined it", sh.name)
		}
		got := int64(ms1.TotalAlloc - ms0.TotalAlloc)
		want, _ := checkBody(sh.body)
		t.Logf("%s: %d KiB allocated (%.1f × the body), bodyCost %d KiB", sh.name, got>>10, float64(got)/float64(len(sh.body)), bodyCost(int64(len(sh.body)))>>10)
		if got > bodyCost(int64(len(sh.body))) {
			t.Errorf("%s: decoding allocated %d KiB, more than bodyCost %d KiB", sh.name, got>>10, bodyCost(int64(len(sh.body)))>>10)
		}
		if st.Values != want.Values || st.MeasuredBytes != want.MeasuredBytes {
			t.Errorf("%s: fast path measured %+v, the walk %+v", sh.name, st, want)
		}
	}
}
