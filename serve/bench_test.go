package serve

// The load benchmarks (bench_test.go, bench_rate_test.go) run a server
// and its clients on loopback in one process: BenchmarkServeSingle is
// closed-loop at saturation (64 clients, each waiting for its answer: its
// latency is mostly queueing, 64 / throughput), BenchmarkServeRate is
// open-loop (wrk2's method: 64 connections offered a fixed rate, each
// request timed from its scheduled send, so a stall counts against every
// request it delays). The garbage collector's target is the process's
// (GOGC, or mpdf serve --gogc): the library does not set it.

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"math/rand/v2"
	"net/http"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpdf/mpdf/metapolicy"
)

// The load benchmarks run a real server on a loopback port and real HTTP
// clients in the same process (so the clients' CPU counts against the
// server's): decisions/s, and request latency percentiles for the single
// case. Bound them by count, e.g.
//
//	go test ./serve -run XXX -bench Serve -benchtime 20000x
//
// A decision is one agent's action; every deliberation here has 3 agents.

const benchAgents = 3

// cpuSeconds is the CPU time (user + system) the process has used.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}

func benchBody(b *testing.B, deliberations int) []byte {
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func(i int) Deliberation {
		for {
			d := randomDeliberation(rng, i)
			if len(d.Agents) >= benchAgents {
				d.Agents = d.Agents[:benchAgents]
				return d
			}
		}
	}
	if deliberations == 1 {
		return mustJSON(b, &DecideRequest{Deliberation: mk(0)})
	}
	req := DecideRequest{}
	for i := range deliberations {
		req.Deliberations = append(req.Deliberations, mk(i))
	}
	return mustJSON(b, &req)
}

// loadTest sends b.N requests of body from clients concurrent goroutines
// and reports decisions/s and latency percentiles.
func loadTest(b *testing.B, body []byte, decisionsPerReq, clients int) {
	s, err := New(Config{PolicyPath: writeTestPolicy(b), MaxInflight: 4 * clients, MaxBodyBytes: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	url, stop := serveLoopback(b, s)
	defer stop()
	tr := &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	send := func() time.Duration {
		t0 := time.Now()
		resp, err := client.Post(url+"/v1/decide", "application/json", bytes.NewReader(body))
		if err != nil {
			b.Error(err)
			return 0
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			b.Errorf("status %d", resp.StatusCode)
		}
		return time.Since(t0)
	}
	for range clients { // warm the connections
		send()
	}

	var mu sync.Mutex
	var lat []time.Duration
	next := make(chan struct{}, b.N)
	for range b.N {
		next <- struct{}{}
	}
	close(next)
	cpu0 := cpuSeconds()
	b.ResetTimer()
	var wg sync.WaitGroup
	for range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var mine []time.Duration
			for range next {
				mine = append(mine, send())
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	elapsed := b.Elapsed()
	b.StopTimer()
	cpu := cpuSeconds() - cpu0
	slices.Sort(lat)
	pct := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(b.N*decisionsPerReq)/elapsed.Seconds(), "decisions/s")
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "req/s")
	// On a shared machine the process gets a varying share of the cores;
	// per CPU-second (server and clients together) is the steadier figure.
	b.ReportMetric(float64(b.N*decisionsPerReq)/cpu, "decisions/cpu-s")
	b.ReportMetric(pct(0.5), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// BenchmarkServeSingle: one deliberation (3 agents) per request, 64
// concurrent clients.
func BenchmarkServeSingle(b *testing.B) {
	loadTest(b, benchBody(b, 1), benchAgents, 64)
}

// BenchmarkServeBatch: 256 deliberations (768 decisions) per request, 4
// concurrent clients.
func BenchmarkServeBatch(b *testing.B) {
	loadTest(b, benchBody(b, 256), 256*benchAgents, 4)
}

// BenchmarkDecide is Policy.Decide without HTTP or JSON: validation,
// features, the network and the draw, for a batch of 256 deliberations.
func BenchmarkDecide(b *testing.B) {
	p, err := LoadPolicy(writeTestPolicy(b))
	if err != nil {
		b.Fatal(err)
	}
	benchDecide(b, p, false)
}

// BenchmarkDecideV2 is BenchmarkDecide for an mpdf-features/v2 policy,
// every deliberation with a history.
func BenchmarkDecideV2(b *testing.B) {
	p, err := NewPolicyVersion("v2", metapolicy.FeatureVersionV2, testNetV2(b, 1))
	if err != nil {
		b.Fatal(err)
	}
	benchDecide(b, p, true)
}

func benchDecide(b *testing.B, p *Policy, history bool) {
	var req DecideRequest
	rng := rand.New(rand.NewPCG(1, 1))
	for i := range 256 {
		d := randomDeliberation(rng, i)
		for len(d.Agents) < benchAgents {
			d = randomDeliberation(rng, i)
		}
		d.Agents = d.Agents[:benchAgents]
		if history {
			d = withHistory(rng, d)
		}
		req.Deliberations = append(req.Deliberations, d)
	}
	b.ReportAllocs()
	cpu0 := cpuSeconds()
	for b.Loop() {
		if _, err := p.Decide(&req); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*256*benchAgents)/b.Elapsed().Seconds(), "decisions/s")
	b.ReportMetric(float64(b.N*256*benchAgents)/(cpuSeconds()-cpu0), "decisions/cpu-s")
}

// nullWriter is a ResponseWriter that keeps nothing, so that
// BenchmarkHandlerSingle counts the handler's allocations alone.
type nullWriter struct {
	h    http.Header
	code int
	n    int
}

func (w *nullWriter) Header() http.Header         { return w.h }
func (w *nullWriter) WriteHeader(code int)        { w.code = code }
func (w *nullWriter) Write(b []byte) (int, error) { w.n += len(b); return len(b), nil }

// BenchmarkHandlerSingle is Server.ServeHTTP on one single-deliberation
// request (3 agents) without the network or net/http's own parsing: the
// handler's CPU and allocations per request (the -benchmem figure).
func BenchmarkHandlerSingle(b *testing.B) { benchHandler(b, benchBody(b, 1)) }

// BenchmarkHandlerSingleV2 is BenchmarkHandlerSingle for a v2 policy and a
// request with a history.
func BenchmarkHandlerSingleV2(b *testing.B) {
	s, err := New(Config{})
	if err != nil {
		b.Fatal(err)
	}
	p, err := NewPolicyVersion("v2", metapolicy.FeatureVersionV2, testNetV2(b, 1))
	if err != nil {
		b.Fatal(err)
	}
	s.SetPolicy(p)
	var req DecideRequest
	if err := json.Unmarshal(benchBody(b, 1), &req); err != nil {
		b.Fatal(err)
	}
	req.Deliberation = withHistory(rand.New(rand.NewPCG(2, 2)), req.Deliberation)
	runHandler(b, s, mustJSON(b, &req))
}

func benchHandler(b *testing.B, body []byte) {
	s, err := New(Config{PolicyPath: writeTestPolicy(b)})
	if err != nil {
		b.Fatal(err)
	}
	runHandler(b, s, body)
}

func runHandler(b *testing.B, s *Server, body []byte) {
	rd := bytes.NewReader(body)
	r, err := http.NewRequest(http.MethodPost, "/v1/decide", io.NopCloser(rd))
	if err != nil {
		b.Fatal(err)
	}
	r.ContentLength = int64(len(body)) // as net/http sets it
	w := &nullWriter{h: http.Header{}}
	b.ReportAllocs()
	for b.Loop() {
		rd.Reset(body)
		w.code = 0
		s.ServeHTTP(w, r)
		if w.code != http.StatusOK {
			b.Fatalf("status %d", w.code)
		}
	}
}
