package serve

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// client is one raw keep-alive connection to a server.
type client struct {
	c  net.Conn
	br *bufio.Reader
}

func dial(t *testing.T, url string) *client {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{c, bufio.NewReader(c)}
}

// healthz sends GET /healthz on the connection and reads the answer.
func (c *client) healthz() error {
	c.c.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(c.c, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		return err
	}
	resp, err := http.ReadResponse(c.br, nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return err
	}
	if resp.StatusCode != 200 {
		return fmt.Errorf("status %d", resp.StatusCode)
	}
	return nil
}

// TestConnectionCap: at most MaxConns connections are open. At the cap a
// new connection is served in the place of the one idle longest, which is
// closed; when every connection is busy, a new one waits until one ends
// and is then served.
func TestConnectionCap(t *testing.T) {
	const max = 4
	s, err := New(Config{PolicyPath: writeTestPolicy(t), MaxConns: max})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serveLoopback(t, s)
	defer stop()
	open := func() int { return s.conns.Load().count() }

	var cs []*client
	for i := range max + 3 {
		c := dial(t, url)
		if err := c.healthz(); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		cs = append(cs, c)
		if n := open(); n > max {
			t.Fatalf("%d connections open, more than %d", n, max)
		}
	}
	// Three, idle longer than the rest, were closed to make room (which
	// three depends on when the server saw each go idle); the others
	// serve. The closes were sent before the last connection was served.
	closed := 0
	for i, c := range cs {
		c.c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.br.ReadByte(); err == io.EOF {
			closed++
			if i >= max {
				t.Errorf("connection %d, among the %d newest, was closed", i, max-1)
			}
		} else if err := c.healthz(); err != nil {
			t.Errorf("connection %d: %v", i, err)
		}
	}
	if closed != 3 {
		t.Errorf("%d connections closed, want 3", closed)
	}
	// The scrape's own connection takes the place of the fourth.
	if got := metricLine(t, url, "mpdf_serve_connections_evicted_total"); got != "4" {
		t.Errorf("%s connections evicted, want 4", got)
	}
	http.DefaultClient.CloseIdleConnections()
	for _, c := range cs {
		c.c.Close()
	}
	waitFor(t, func() bool { return open() == 0 })

	// Every connection busy: a body on its way, the handler reading it.
	var busy []*client
	for range max {
		c := dial(t, url)
		fmt.Fprintf(c.c, "POST /v1/decide HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", len(smallBody))
		io.WriteString(c.c, smallBody[:10])
		busy = append(busy, c)
	}
	waitFor(t, func() bool { return len(s.sem) == max })
	next := dial(t, url)
	done := make(chan error, 1)
	go func() { done <- next.healthz() }()
	time.Sleep(100 * time.Millisecond) // time for it to be let in, were it to be
	if n := open(); n > max {
		t.Fatalf("%d connections open with all %d busy, more than the cap", n, max)
	}
	io.WriteString(busy[0].c, smallBody[10:])
	resp, err := http.ReadResponse(busy[0].br, nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the busy request: %v %v", resp, err)
	}
	resp.Body.Close()
	busy[0].c.Close()
	if err := <-done; err != nil {
		t.Errorf("the connection that waited: %v", err)
	}
	for _, c := range busy[1:] {
		io.WriteString(c.c, smallBody[10:])
	}
}

const smallBody = `{"round":1,"rounds":1,"agents":[{},{}]}`

// TestIdleConnectionsInBudget: thousands of idle keep-alive connections to
// a server process of a 128 MiB budget keep its peak RSS under the budget,
// and every one of them is served in turn (each in the place of one idle
// longer). 19k idle connections used to take a 512 MiB server to 537 MiB.
func TestIdleConnectionsInBudget(t *testing.T) {
	if raceEnabled {
		t.Skip("the server process is this race-instrumented binary: its RSS is the detector's shadow memory, not the server's")
	}
	const budget = 128 << 20
	n := 8000 // ~200 MiB of connections at 25 KiB each when none is closed
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err == nil && lim.Cur < uint64(n+256) {
		n = int(lim.Cur) - 256 // Go raises the soft limit to the hard one
	}
	url, pid := serverProcess(t, budget, false)
	served := 0
	for i := range n {
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		defer c.Close() // held open from this side, as an attacker would
		cl := &client{c, bufio.NewReader(c)}
		if err := cl.healthz(); err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		served++
	}
	peak := procStatus(t, pid, "VmHWM")
	t.Logf("%d idle connections: peak RSS %d MiB, budget %d MiB", served, peak>>20, budget>>20)
	if peak > budget {
		t.Errorf("peak RSS %d MiB over the %d MiB budget with %d idle connections", peak>>20, budget>>20, served)
	}
}

// TestConnectionCapSlowHeaders: when every connection is a new one that has
// sent no headers (slow clients holding the cap), a connection that comes
// takes the place of the oldest of them once it has been silent newGrace,
// rather than wait for the header timeout.
func TestConnectionCapSlowHeaders(t *testing.T) {
	const max = 4
	// A header timeout far off: the silent connections are closed by the
	// cap, not by it.
	s, err := New(Config{PolicyPath: writeTestPolicy(t), MaxConns: max, ReadHeaderTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	url, stop := serveLoopback(t, s)
	defer stop()
	var silent []*client
	for range max {
		c := dial(t, url)
		io.WriteString(c.c, "GET /healthz HTTP/1.1\r\n") // and nothing more
		silent = append(silent, c)
	}
	waitFor(t, func() bool { return s.conns.Load().count() == max })
	if err := dial(t, url).healthz(); err != nil {
		t.Fatalf("a connection at a cap of silent ones: %v", err)
	}
	closed := 0
	for _, c := range silent {
		c.c.SetReadDeadline(time.Now().Add(time.Second))
		if _, err := c.br.ReadByte(); err == io.EOF {
			closed++
		}
	}
	if closed != 1 {
		t.Errorf("%d silent connections closed, want 1", closed)
	}
	for _, c := range silent {
		c.c.Close() // before stop, which would wait for them
	}
}
