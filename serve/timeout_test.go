package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// metricLine returns the value of the /metrics line that starts with
// prefix, "" when there is none.
func metricLine(t *testing.T, url, prefix string) string {
	t.Helper()
	_, b := get(t, url+"/metrics")
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, prefix); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// batchOf is a batch of n deliberations of two agents.
func batchOf(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"deliberations":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"round":1,"rounds":1,"agents":[{"answer":"1"},{"answer":"2"}]}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestRequestTimeout: a request whose work outlives the write timeout gets
// 503 (kind timeout, Retry-After) before the connection is cut, rather than
// nothing; /metrics counts it as 503 and the log says why; its work stops
// and gives its memory back. Work that checks its deadline between
// deliberations (a small body, decided on the handler's goroutine) and
// work stuck in one step (a large body, or one with a text: on a goroutine
// of its own) alike.
func TestRequestTimeout(t *testing.T) {
	for _, c := range []struct {
		name string
		body []byte
		hook func(call int64)
	}{
		{"slow deliberations", batchOf(400), func(int64) { time.Sleep(5 * time.Millisecond) }},
		{"one stuck step, small body with a text", []byte(`{"kind":"gsm8k","round":1,"rounds":1,"agents":[{"text":"so \\boxed{4}"},{"answer":"4"}]}`), func(int64) {
			time.Sleep(3 * time.Second)
		}},
		{"one stuck step", batchOf(1100), func(call int64) {
			if call == 1 {
				time.Sleep(3 * time.Second)
			}
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var calls atomic.Int64
			testHookDeliberation = func() { c.hook(calls.Add(1)) }
			defer func() { testHookDeliberation = nil }()
			var log syncBuffer
			// A second between the request's deadline and the cut: the 503
			// must come first even on a loaded CI machine.
			s, err := New(Config{PolicyPath: writeTestPolicy(t), RequestTimeout: time.Second, WriteTimeout: 2 * time.Second,
				Log: slog.New(slog.NewTextHandler(&log, nil))})
			if err != nil {
				t.Fatal(err)
			}
			url, stop := serveLoopback(t, s)
			defer stop()
			resp, err := http.Post(url+"/v1/decide", "application/json", bytes.NewReader(c.body))
			if err != nil {
				t.Fatalf("no status: %v", err)
			}
			var eb ErrorBody
			err = json.NewDecoder(resp.Body).Decode(&eb)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusServiceUnavailable || eb.Kind != "timeout" || resp.Header.Get("Retry-After") == "" {
				t.Fatalf("%d %+v (%v), Retry-After %q; want 503 timeout with Retry-After", resp.StatusCode, eb, err, resp.Header.Get("Retry-After"))
			}
			if got := metricLine(t, url, `mpdf_serve_requests_total{code="503",route="/v1/decide"}`); got != "1" {
				t.Errorf("/metrics counts %q requests as 503, want 1", got)
			}
			if got := metricLine(t, url, `mpdf_serve_requests_total{code="200",route="/v1/decide"}`); got != "" && got != "0" {
				t.Errorf("/metrics counts %s requests as 200, want none", got)
			}
			if !strings.Contains(log.String(), "past the request timeout") {
				t.Errorf("log: %s, want the timeout", log.String())
			}
			waitIdle(t, url)
			if n := calls.Load(); n >= 400 {
				t.Errorf("%d deliberations decided: the work went on past its deadline", n)
			}
		})
	}
}

// TestClientGoneStopsWork: when the client goes away, the work stops at
// the next deliberation, its memory is given back, and the request is
// counted (499) and logged as such.
func TestClientGoneStopsWork(t *testing.T) {
	var log syncBuffer
	s, err := New(Config{PolicyPath: writeTestPolicy(t), Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serveLoopback(t, s)
	defer stop()
	const n = 1000
	var done atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	testHookDeliberation = func() {
		if done.Add(1) == 10 {
			cancel()
		}
		time.Sleep(5 * time.Millisecond) // 5 s for the batch
	}
	defer func() { testHookDeliberation = nil }()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, url+"/v1/decide", bytes.NewReader(batchOf(n)))
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("status %d, want the client to give up", resp.StatusCode)
	}
	waitIdle(t, url)
	if got := done.Load(); got >= n/2 {
		t.Errorf("%d of %d deliberations decided after the client left at the 10th", got, n)
	}
	for deadline := time.Now().Add(10 * time.Second); metricLine(t, url, `mpdf_serve_requests_total{code="499",route="/v1/decide"}`) != "1"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("/metrics does not count the request as 499")
		}
	}
	if !strings.Contains(log.String(), "client went away") {
		t.Errorf("log: %s, want the client's departure", log.String())
	}
}
