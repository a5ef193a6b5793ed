package serve

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestLateAnswerGetsAStatus: a response written after the write timeout
// has passed since the request's headers (work that ran long after its
// last check of the deadline, a handler that got the CPU late on a loaded
// machine) still goes out with its status: the write timeout counts from
// when the response starts. It used to close the connection without one.
func TestLateAnswerGetsAStatus(t *testing.T) {
	testHookDeliberation = func() { time.Sleep(700 * time.Millisecond) }
	defer func() { testHookDeliberation = nil }()
	s, err := New(Config{PolicyPath: writeTestPolicy(t), WriteTimeout: 500 * time.Millisecond, RequestTimeout: 400 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serveLoopback(t, s)
	defer stop()
	// One deliberation, decided on the handler's goroutine: the deadline
	// is checked before it, and it ends past the write timeout.
	resp, err := http.Post(url+"/v1/decide", "application/json", strings.NewReader(`{"round":1,"rounds":1,"agents":[{},{}]}`))
	if err != nil {
		t.Fatalf("no status: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusServiceUnavailable {
		t.Fatalf("%d %s (%v), want 200 or 503 whole", resp.StatusCode, b, err)
	}
}

// TestCutResponseCountedAsError: a 200 whose body the write timeout cuts
// (a client that stops reading an 800 KB response) is counted in /metrics as
// an error (code 599, errors kind cut_short), not as a 200, and logged; the
// server goes on serving.
func TestCutResponseCountedAsError(t *testing.T) {
	var log syncBuffer
	const writeTimeout = 2 * time.Second
	s, err := New(Config{PolicyPath: writeTestPolicy(t), WriteTimeout: writeTimeout, Log: slog.New(slog.NewTextHandler(&log, nil))})
	if err != nil {
		t.Fatal(err)
	}
	// Small socket buffers on both sides, so that the server's writes
	// block once a few KiB are on their way.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, smallBuffers{ln}) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
	}()
	url := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err == nil {
			c.(*net.TCPConn).SetReadBuffer(16 << 10)
		}
		return c, err
	}}}
	body := bytes.NewReader(batchOf(2048)) // a response of ~800 KB
	resp, err := client.Post(url+"/v1/decide", "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("status %d, want 200", resp.StatusCode)
	}
	time.Sleep(writeTimeout + time.Second) // the server's write timeout passes
	n, err := io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if err == nil {
		t.Fatalf("the whole response (%d bytes) was read after the write timeout; want it cut", n)
	}
	waitIdle(t, url)
	for deadline := time.Now().Add(10 * time.Second); metricLine(t, url, `mpdf_serve_requests_total{code="599",route="/v1/decide"}`) != "1"; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			_, m := get(t, url+"/metrics")
			t.Fatalf("/metrics does not count the cut response as 599: %s\nlog %s", m, log.String())
		}
	}
	if got := metricLine(t, url, `mpdf_serve_requests_total{code="200",route="/v1/decide"}`); got != "" && got != "0" {
		t.Errorf("/metrics counts %s decide requests as 200, want none", got)
	}
	if got := metricLine(t, url, `mpdf_serve_errors_total{kind="cut_short"}`); got != "1" {
		t.Errorf("errors kind cut_short: %q, want 1", got)
	}
	if !strings.Contains(log.String(), "cut short; counted as an error") {
		t.Errorf("log: %s, want the cut", log.String())
	}
	if code, _ := post(t, url+"/v1/decide", []byte(`{"round":1,"rounds":1,"agents":[{},{}]}`)); code != 200 {
		t.Errorf("decide after the cut: %d", code)
	}
}

// smallBuffers is a listener whose connections have 16 KiB send buffers.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err == nil {
		c.(*net.TCPConn).SetWriteBuffer(16 << 10)
	}
	return c, err
}
