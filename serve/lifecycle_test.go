package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// TestReload: POST /v1/reload swaps in the new file; a file that fails to
// load keeps the old policy serving and the error says why; decide
// requests running across the reloads all succeed.
func TestReload(t *testing.T) {
	s, hs, path := newTestServer(t, Config{AllowReload: true})
	policyStep := func() int64 {
		code, b := get(t, hs.URL+"/v1/policy")
		var info PolicyInfo
		if err := json.Unmarshal(b, &info); err != nil || code != 200 || info.Step == nil {
			t.Fatalf("GET /v1/policy: %d %s", code, b)
		}
		return *info.Step
	}
	if st := policyStep(); st != 100 {
		t.Fatalf("step %d, want 100", st)
	}

	var stop atomic.Bool
	var wg sync.WaitGroup
	var served, failed atomic.Int64
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				resp, err := http.Post(hs.URL+"/v1/decide", "application/json",
					strings.NewReader(`{"round":1,"rounds":2,"agents":[{"answer":"1"},{"answer":"2"}]}`))
				if err != nil {
					failed.Add(1)
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode == 200 {
					served.Add(1)
				} else {
					failed.Add(1)
				}
			}
		}()
	}
	for step := int64(101); step <= 120; step++ {
		writeCheckpoint(t, path, uint64(step), step)
		code, b := post(t, hs.URL+"/v1/reload", nil)
		if code != 200 || !strings.Contains(string(b), `"step":`) {
			t.Fatalf("reload: %d %s", code, b)
		}
		if st := policyStep(); st != step {
			t.Fatalf("after reload, step %d, want %d", st, step)
		}
	}
	if err := os.WriteFile(path, []byte("not a checkpoint"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, b := post(t, hs.URL+"/v1/reload", nil)
	var eb ErrorBody
	json.Unmarshal(b, &eb)
	if code != 500 || eb.Kind != "reload" || !strings.Contains(eb.Error, "previous policy keeps serving") || !strings.Contains(eb.Error, "not an mpdf checkpoint") {
		t.Errorf("reload of a broken file: %d %s", code, b)
	}
	if _, err := s.Reload(); err == nil {
		t.Error("Reload of a broken file returned no error")
	}
	if st := policyStep(); st != 120 {
		t.Errorf("after a failed reload, step %d, want the previous 120", st)
	}
	stop.Store(true)
	wg.Wait()
	if failed.Load() != 0 || served.Load() == 0 {
		t.Errorf("during reloads: %d served, %d failed", served.Load(), failed.Load())
	}
	if code, _ := post(t, hs.URL+"/v1/decide", []byte(`{"round":1,"rounds":1,"agents":[{},{}]}`)); code != 200 {
		t.Errorf("decide after a failed reload: %d", code)
	}
	_, m := get(t, hs.URL+"/metrics")
	for _, want := range []string{`mpdf_serve_reloads_total{result="ok"} 20`, `mpdf_serve_reloads_total{result="failed"} 2`} {
		if !strings.Contains(string(m), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
}

// TestGracefulShutdown: a request in flight when the server is told to stop
// finishes with 200; new connections are refused after; Serve returns nil.
func TestGracefulShutdown(t *testing.T) {
	s, err := New(Config{PolicyPath: writeTestPolicy(t)})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serveLoopback(t, s)
	body := `{"round":1,"rounds":1,"agents":[{},{}]}`
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	go func() {
		resp, err := http.Post(url+"/v1/decide", "application/json", pr)
		if err != nil {
			t.Error(err)
			done <- 0
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		done <- resp.StatusCode
	}()
	pw.Write([]byte(body[:5]))
	waitFor(t, func() bool { return len(s.sem) == 1 })
	stopped := make(chan struct{})
	go func() { stop(); close(stopped) }()
	waitFor(t, func() bool { return s.stopping.Load() })
	pw.Write([]byte(body[5:]))
	pw.Close()
	if code := <-done; code != 200 {
		t.Errorf("the request in flight got %d", code)
	}
	<-stopped
	if _, err := http.Get(url + "/healthz"); err == nil {
		t.Error("the server still accepts connections after shutdown")
	}
}

// TestHealthAndPolicy: healthz, readyz (not ready without a policy),
// the policy header, and the metrics a scrape shows after some traffic.
func TestHealthAndPolicy(t *testing.T) {
	bare, err := New(Config{})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serveLoopback(t, bare)
	if code, _ := get(t, url+"/healthz"); code != 200 {
		t.Errorf("healthz without a policy: %d", code)
	}
	if code, b := get(t, url+"/readyz"); code != 503 || !strings.Contains(string(b), "no policy loaded") {
		t.Errorf("readyz without a policy: %d %s", code, b)
	}
	if code, _ := post(t, url+"/v1/decide", []byte(`{"round":1,"rounds":1,"agents":[{},{}]}`)); code != 503 {
		t.Errorf("decide without a policy: %d", code)
	}
	p, err := NewPolicy("mem", testNet(t, 3))
	if err != nil {
		t.Fatal(err)
	}
	bare.SetPolicy(p)
	if code, _ := get(t, url+"/readyz"); code != 200 {
		t.Errorf("readyz with a policy: %d", code)
	}
	stop()

	_, hs, path := newTestServer(t, Config{})
	_, b := get(t, hs.URL+"/v1/policy")
	var info PolicyInfo
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(`{"lr":0.001,"iterations":40}`))
	if info.Name != "best.mpdf" || info.Path != path || info.Format != "checkpoint" || info.Seed == nil || *info.Seed != 1 ||
		info.TrainConfigHash != hex.EncodeToString(sum[:]) || info.Metrics["reward"] != 0.5 || info.Activation != "tanh" || len(info.Sizes) != 4 {
		t.Errorf("policy info %s", b)
	}
	post(t, hs.URL+"/v1/decide", []byte(`{"round":1,"rounds":1,"agents":[{},{},{}]}`))
	post(t, hs.URL+"/v1/decide", []byte(`{"round":1}`))
	_, m := get(t, hs.URL+"/metrics")
	for _, want := range []string{
		`mpdf_serve_requests_total{code="200",route="/v1/decide"} 1`,
		`mpdf_serve_requests_total{code="400",route="/v1/decide"} 1`,
		`mpdf_serve_errors_total{kind="invalid"} 1`,
		`mpdf_serve_request_duration_seconds_bucket{route="/v1/decide",le="10"} 2`,
		`mpdf_serve_decisions_total{action="persist"}`,
		`mpdf_serve_inflight_requests 0`,
	} {
		if !strings.Contains(string(m), want) {
			t.Errorf("metrics lack %s", want)
		}
	}
	var total float64
	for _, line := range strings.Split(string(m), "\n") {
		if strings.HasPrefix(line, "mpdf_serve_decisions_total{") {
			var v float64
			if _, err := fmt.Sscan(line[strings.LastIndexByte(line, ' ')+1:], &v); err == nil {
				total += v
			}
		}
	}
	if total != 3 {
		t.Errorf("decisions counted %v, want 3", total)
	}
}
