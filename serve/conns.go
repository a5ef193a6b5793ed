package serve

// Connections: at most Config.MaxConns are open at once, and each is
// counted at connCost bytes out of the memory budget, held back from what
// requests may reserve (admitPool): an idle keep-alive connection holds
// net/http's buffers and a goroutine (22 KiB of RSS each, measured over
// 5,000 idle connections), and 19k of them used to take a 512 MiB server
// to 537 MiB. At the cap, a new connection takes the place of the one idle
// longest (closed as the idle timeout would close it), else of the oldest
// one that has not finished its first request's headers within newGrace
// (a slow client's, which ReadHeaderTimeout would cut anyway); else it waits
// in the kernel's backlog until a connection ends (TestConnectionCap).

import (
	"net"
	"net/http"
	"sync"
	"time"
)

const (
	// connCost is what an open connection is counted at: net/http's 4 KiB
	// read and write buffers, its goroutine's stack and the connection's
	// state, with room for the collector's overhead.
	connCost = 32 << 10
	// connShare is the part of the budget the default MaxConns fills:
	// 1/16, 1024 connections for the default 512 MiB.
	connShare = 16
	// maxConnsLimit bounds MaxConns (Validate).
	maxConnsLimit = 1 << 20
	// newGrace is how long a new connection may take to send its first
	// request's headers before one waiting at the cap may take its place.
	newGrace = time.Second
)

// defaultMaxConns is the connection cap of a budget: connShare of it.
func defaultMaxConns(maxMemory int64) int { return int(maxMemory / connShare / connCost) }

// connLimit is a listener that keeps at most cap(slots) connections open.
type connLimit struct {
	net.Listener
	slots  chan struct{}
	closed chan struct{}
	once   sync.Once
	// ready is signalled when a connection may be evicted (it went idle).
	ready chan struct{}

	mu    sync.Mutex
	conns map[*limitedConn]struct{}

	open    interface{ Set(float64) } // the gauge of open connections
	evicted interface{ Inc() }        // connections closed to make room
}

func newConnLimit(ln net.Listener, n int, m *metrics) *connLimit {
	return &connLimit{Listener: ln, slots: make(chan struct{}, n), closed: make(chan struct{}), ready: make(chan struct{}, 1),
		conns: make(map[*limitedConn]struct{}, n), open: m.conns, evicted: m.evicted}
}

// limitedConn is a connection holding a slot, with its state as net/http
// reports it (ConnState).
type limitedConn struct {
	net.Conn
	l       *connLimit
	once    sync.Once
	state   http.ConnState // under l.mu
	since   time.Time      // when it entered state
	evicted bool           // under l.mu
}

// Accept waits for a connection and a slot for it: a free one, or one
// taken from an idle connection (or a slow new one).
func (l *connLimit) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	for {
		select {
		case l.slots <- struct{}{}:
			return l.add(c), nil
		default:
		}
		if l.evict() {
			continue
		}
		select {
		case l.slots <- struct{}{}:
			return l.add(c), nil
		case <-l.ready:
		case <-time.After(newGrace): // a new connection may have grown slow
		case <-l.closed:
			c.Close()
			return nil, net.ErrClosed
		}
	}
}

func (l *connLimit) add(c net.Conn) *limitedConn {
	lc := &limitedConn{Conn: c, l: l, state: http.StateNew, since: time.Now()}
	l.mu.Lock()
	l.conns[lc] = struct{}{}
	l.open.Set(float64(len(l.conns)))
	l.mu.Unlock()
	return lc
}

// evict closes the connection idle longest, or else the oldest new one
// past newGrace, and reports whether there was one.
func (l *connLimit) evict() bool {
	now := time.Now()
	l.mu.Lock()
	var idle, slow *limitedConn
	for c := range l.conns {
		switch {
		case c.evicted:
		case c.state == http.StateIdle:
			if idle == nil || c.since.Before(idle.since) {
				idle = c
			}
		case c.state == http.StateNew && now.Sub(c.since) >= newGrace:
			if slow == nil || c.since.Before(slow.since) {
				slow = c
			}
		}
	}
	victim := idle
	if victim == nil {
		victim = slow
	}
	if victim != nil {
		victim.evicted = true
	}
	l.mu.Unlock()
	if victim == nil {
		return false
	}
	l.evicted.Inc()
	victim.Close() // gives its slot back
	return true
}

// count is the number of open connections.
func (l *connLimit) count() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.conns)
}

// connState is the http.Server's ConnState hook: it tracks which
// connections may be evicted.
func (l *connLimit) connState(c net.Conn, st http.ConnState) {
	lc, ok := c.(*limitedConn)
	if !ok {
		return
	}
	l.mu.Lock()
	lc.state, lc.since = st, time.Now()
	l.mu.Unlock()
	if st == http.StateIdle {
		select {
		case l.ready <- struct{}{}:
		default:
		}
	}
}

// Close closes the listener and ends an Accept waiting for a slot.
func (l *connLimit) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Close closes the connection and gives its slot back, once.
func (c *limitedConn) Close() error {
	err := c.Conn.Close()
	c.once.Do(func() {
		c.l.mu.Lock()
		delete(c.l.conns, c)
		c.l.open.Set(float64(len(c.l.conns)))
		c.l.mu.Unlock()
		<-c.l.slots
	})
	return err
}
