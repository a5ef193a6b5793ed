package serve

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The open-loop load benchmark (wrk2's method): requests are offered at a
// fixed rate whatever the server does, each on a schedule fixed in advance,
// and each request's latency is measured from its scheduled send time, not
// from when it was actually sent. A closed-loop test at saturation
// (BenchmarkServeSingle) measures queueing instead: 64 clients each waiting
// for its answer before it asks again see a mean latency of 64 / throughput
// whatever the server's speed, and a stall stops the clients from sending,
// so the stall is counted once instead of once per request it delayed
// (coordinated omission). Here a late server makes every later request on
// its connection late, and that lateness counts.
//
//	go test ./serve -run XXX -bench ServeRate -benchtime 100000x -count 3
//	go test ./serve -run XXX -bench ServeRate/flag -serve.rate 80000 -benchtime 200000x
//
// -benchtime Nx sets the number of requests, so the run lasts N /
// (rate/3) seconds: 100000x at 20 k decisions/s is 15 s.

var serveRate = flag.Float64("serve.rate", 0, "BenchmarkServeRate/flag: offered decisions/s (3 per request)")

// BenchmarkServeRate offers single deliberations (3 agents) from 64
// connections at 20 k and 50 k decisions/s, and at -serve.rate when set.
// Reported: the achieved decisions/s and its ratio to the offered rate
// ("sustained", 1 when the server kept up), the latency percentiles from
// the scheduled send time (p50, p99, p99.9 and max, in ms), the p99 of the
// service time alone (from the actual send; the two differ by the time
// requests waited for their connection or for the client's timer), and the
// p99 lateness of the sends behind their schedule.
func BenchmarkServeRate(b *testing.B) {
	body := benchBody(b, 1)
	for _, rate := range []float64{20000, 50000} {
		b.Run(fmt.Sprintf("%.0fk", rate/1000), func(b *testing.B) { openLoop(b, body, benchAgents, 64, rate) })
	}
	if *serveRate > 0 {
		b.Run("flag", func(b *testing.B) { openLoop(b, body, benchAgents, 64, *serveRate) })
	}
}

// BenchmarkServeSingleRaw is BenchmarkServeSingle (closed loop, 64
// clients, saturated) with the raw clients of BenchmarkServeRate instead
// of net/http's: the server's capacity and queueing when the load
// generator costs little, as an external one (wrk) on other cores would.
func BenchmarkServeSingleRaw(b *testing.B) {
	const conns = 64
	body := benchBody(b, 1)
	s, err := New(Config{PolicyPath: writeTestPolicy(b), MaxInflight: 4 * conns})
	if err != nil {
		b.Fatal(err)
	}
	url, stop := serveLoopback(b, s)
	defer stop()
	clients := dialClients(b, strings.TrimPrefix(url, "http://"), body, conns)
	lat := make([]time.Duration, b.N)
	var failed sync.Once
	cpu0 := cpuSeconds()
	b.ResetTimer()
	var wg sync.WaitGroup
	for ci, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := ci; k < b.N; k += conns {
				t0 := time.Now()
				if err := c.do(); err != nil {
					failed.Do(func() { b.Error(err) })
					return
				}
				lat[k] = time.Since(t0)
			}
		}()
	}
	wg.Wait()
	elapsed := b.Elapsed()
	b.StopTimer()
	cpu := cpuSeconds() - cpu0
	if b.Failed() {
		return
	}
	slices.Sort(lat)
	ms := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(float64(b.N*benchAgents)/elapsed.Seconds(), "decisions/s")
	b.ReportMetric(float64(b.N*benchAgents)/cpu, "decisions/cpu-s")
	b.ReportMetric(ms(0.5), "p50-ms")
	b.ReportMetric(ms(0.99), "p99-ms")
	b.ReportMetric(ms(0.999), "p99.9-ms")
	b.ReportMetric(0, "ns/op")
}

// dialClients opens n raw connections to addr for body, each warmed by a
// few requests.
func dialClients(b *testing.B, addr string, body []byte, n int) []*rawClient {
	clients := make([]*rawClient, n)
	for i := range clients {
		c, err := dialRaw(addr, body)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { c.conn.Close() })
		for range 4 { // warm the connection and the server's pools
			if err := c.do(); err != nil {
				b.Fatal(err)
			}
		}
		clients[i] = c
	}
	return clients
}

// openLoop offers b.N requests of body at rate decisions/s over conns
// connections: request k is due at start + k·interval and goes out on
// connection k mod conns, as soon as it is due and that connection's
// previous request has been answered.
func openLoop(b *testing.B, body []byte, decisionsPerReq, conns int, rate float64) {
	s, err := New(Config{PolicyPath: writeTestPolicy(b), MaxInflight: 4 * conns, MaxBodyBytes: 8 << 20})
	if err != nil {
		b.Fatal(err)
	}
	url, stop := serveLoopback(b, s)
	defer stop()
	clients := dialClients(b, strings.TrimPrefix(url, "http://"), body, conns)

	interval := time.Duration(float64(time.Second) * float64(decisionsPerReq) / rate)
	n := b.N
	lat := make([]time.Duration, n)  // from the scheduled send
	svc := make([]time.Duration, n)  // from the actual send
	late := make([]time.Duration, n) // actual send − scheduled send
	var failed sync.Once
	cpu0 := cpuSeconds()
	b.ResetTimer()
	start := time.Now().Add(time.Millisecond)
	var wg sync.WaitGroup
	for ci, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := ci; k < n; k += conns {
				due := start.Add(time.Duration(k) * interval)
				if d := time.Until(due); d > 0 {
					time.Sleep(d)
				}
				sent := time.Now()
				if err := c.do(); err != nil {
					failed.Do(func() { b.Error(err) })
					return
				}
				done := time.Now()
				lat[k], svc[k], late[k] = done.Sub(due), done.Sub(sent), sent.Sub(due)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	b.StopTimer()
	cpu := cpuSeconds() - cpu0
	if b.Failed() {
		return
	}
	ms := func(d []time.Duration, p float64) float64 {
		return float64(d[int(p*float64(len(d)-1))].Microseconds()) / 1000
	}
	for _, d := range [][]time.Duration{lat, svc, late} {
		slices.Sort(d)
	}
	achieved := float64(n*decisionsPerReq) / elapsed.Seconds()
	b.ReportMetric(achieved, "decisions/s")
	// A server that keeps up ends the run one request's latency after the
	// schedule does: achieved / offered ≈ 1.
	b.ReportMetric(achieved/rate, "sustained")
	b.ReportMetric(float64(n*decisionsPerReq)/cpu, "decisions/cpu-s")
	b.ReportMetric(ms(lat, 0.5), "p50-ms")
	b.ReportMetric(ms(lat, 0.99), "p99-ms")
	b.ReportMetric(ms(lat, 0.999), "p99.9-ms")
	b.ReportMetric(ms(lat, 1), "max-ms")
	b.ReportMetric(ms(svc, 0.99), "svc-p99-ms")
	b.ReportMetric(ms(late, 0.99), "late-p99-ms")
	b.ReportMetric(0, "ns/op")
}

// rawClient is a minimal HTTP/1.1 keep-alive client for one fixed request:
// the load generator's CPU counts against the server's on a shared
// machine, and net/http's client costs about as much as its server.
type rawClient struct {
	conn net.Conn
	r    *bufio.Reader
	req  []byte // the whole request: headers and body
}

func dialRaw(addr string, body []byte) (*rawClient, error) {
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		return nil, err
	}
	req := fmt.Appendf(nil, "POST /v1/decide HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, len(body))
	return &rawClient{conn: conn, r: bufio.NewReaderSize(conn, 16<<10), req: append(req, body...)}, nil
}

var contentLength = []byte("content-length:")

// do sends the request and reads the whole response, which must be a 200
// with a Content-Length (what the server sends for a small body).
func (c *rawClient) do() error {
	if _, err := c.conn.Write(c.req); err != nil {
		return err
	}
	line, err := c.r.ReadSlice('\n')
	if err != nil {
		return err
	}
	if !bytes.HasPrefix(line, []byte("HTTP/1.1 200 ")) {
		return fmt.Errorf("status line %q", line)
	}
	n := -1
	for {
		line, err = c.r.ReadSlice('\n')
		if err != nil {
			return err
		}
		if len(line) <= 2 { // the blank line ending the headers
			break
		}
		if len(line) > len(contentLength) && bytes.EqualFold(line[:len(contentLength)], contentLength) {
			if n, err = strconv.Atoi(string(bytes.TrimSpace(line[len(contentLength):]))); err != nil {
				return fmt.Errorf("header %q: %w", line, err)
			}
		}
	}
	if n < 0 {
		return errors.New("response without Content-Length")
	}
	_, err = c.r.Discard(n)
	return err
}
