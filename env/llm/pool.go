package llm

// Several endpoints.
//
// A Client spreads its requests over its endpoints, replicas of one model
// (Config.BaseURL and Config.BaseURLs). Each attempt takes the live
// endpoint with the fewest requests in flight (ties go round the endpoints
// in turn), at most Config.PerEndpoint in flight at each, and within
// Config.Concurrency in all.
//
// An endpoint is taken out of rotation at once when an attempt gets no
// HTTP answer from it (refused, reset, body broken off), and after
// outAfter attempts in a row that time out or answer 5xx (one such answer
// may be the request's fault, not the server's). It stays out for the
// backoff of its failures in a row (Backoff.Initial doubling up to
// Backoff.Max, no jitter); then one attempt at a time probes it, and the
// first answer takes it back. 4xx answers (429 included: the server is
// up, only busy) and malformed ones leave it in.
//
// A failed attempt that may pass when sent again moves at once to another
// live endpoint, without a wait and without counting against MaxRetries
// (at most once per other endpoint in a call). With no other endpoint
// live, the call waits and retries as against a lone server (MaxRetries,
// Backoff), on the endpoints back soonest; one endpoint behaves exactly as
// before there were several. A call that gives up while every endpoint is
// out says so and names each with its last error: the collection stops as
// it does against one server, keeping its episodes for --resume.
//
// Which endpoint serves a call changes nothing in the request: its seed
// comes from the game (see client.go), and a shard's record leaves the URLs
// out. The replicas must serve the same model the same way for episodes to
// repeat, as one server must.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// outAfter is how many attempts in a row that time out or answer 5xx take
// an endpoint out.
const outAfter = 2

// maxLastError bounds the last error kept per endpoint for reports (a
// server's message is untrusted text).
const maxLastError = 200

// EndpointStats is what one endpoint did.
type EndpointStats struct {
	URL              string `json:"url"`      // where requests are posted
	Attempts         int64  `json:"attempts"` // HTTP requests sent to it
	Answers          int64  `json:"answers"`  // attempts it answered
	Errors           int64  `json:"errors"`   // attempts that failed (not counting the caller's cancellations)
	Outs             int64  `json:"outs"`     // times taken out of rotation
	PromptTokens     int64  `json:"prompt_tokens"`
	CompletionTokens int64  `json:"completion_tokens"`
	Live             bool   `json:"live"` // in rotation when the stats were taken
	LastError        string `json:"last_error,omitempty"`
}

// endpoint is one replica: its slots and its health. The pool's mutex
// guards it.
type endpoint struct {
	url      string
	inflight int
	out      bool      // out of rotation
	until    time.Time // while out: when it may be probed
	probing  bool      // a probe is in flight
	fails    int       // failed attempts in a row
	st       EndpointStats
}

// pool hands out endpoint slots and keeps the endpoints' health.
type pool struct {
	mu      sync.Mutex
	eps     []*endpoint
	per     int           // most in flight at one endpoint
	next    int           // where the next pick starts looking
	wake    chan struct{} // closed (and replaced) when a slot frees, if anyone waits
	waiting int           // acquires waiting on wake
	backoff Backoff
	now     func() time.Time // tests replace it
}

// slot is one attempt's hold on an endpoint.
type slot struct {
	ep       *endpoint
	whileOut bool // sent while its endpoint was out (a probe, or none was live)
	probe    bool
}

func newPool(urls []string, per int, b Backoff) *pool {
	p := &pool{per: per, wake: make(chan struct{}), backoff: b, now: time.Now}
	for _, u := range urls {
		p.eps = append(p.eps, &endpoint{url: u, st: EndpointStats{URL: u}})
	}
	return p
}

// acquire waits for a slot on an endpoint (see pick) or until ctx is done.
// A wait always ends: it happens only while some attempt is in flight,
// whose release wakes it.
func (p *pool) acquire(ctx context.Context, avoid string) (slot, error) {
	for {
		p.mu.Lock()
		s, ok := p.pick(p.now(), avoid)
		if ok {
			s.ep.inflight++
			s.ep.st.Attempts++
			if s.probe {
				s.ep.probing = true
			}
			p.mu.Unlock()
			return s, nil
		}
		wake := p.wake
		p.waiting++
		p.mu.Unlock()
		var err error
		select {
		case <-wake:
		case <-ctx.Done():
			err = ctx.Err()
		}
		p.mu.Lock()
		p.waiting--
		p.mu.Unlock()
		if err != nil {
			return slot{}, err
		}
	}
}

// pick chooses the endpoint of the next attempt: one whose out period is
// over and which no probe is testing (so a recovered replica comes back
// soon), else the live one with the fewest in flight, else, when none is
// live, the one back soonest. Full endpoints are skipped; false when every
// candidate is full. The endpoint at avoid (where the call's last attempt
// failed) is left to the last case: a call moves off it while another is
// live.
func (p *pool) pick(now time.Time, avoid string) (slot, bool) {
	n := len(p.eps)
	live := false
	best, bi := (*endpoint)(nil), 0
	for i := range n {
		k := (p.next + i) % n
		e := p.eps[k]
		if e.url == avoid {
			continue
		}
		if e.out {
			if !e.probing && !now.Before(e.until) && e.inflight < p.per {
				p.next = (k + 1) % n
				return slot{ep: e, whileOut: true, probe: true}, true
			}
			continue
		}
		live = true
		if e.inflight < p.per && (best == nil || e.inflight < best.inflight) {
			best, bi = e, k
		}
	}
	if best != nil {
		p.next = (bi + 1) % n
		return slot{ep: best}, true
	}
	if live {
		return slot{}, false
	}
	for _, e := range p.eps {
		if e.url == avoid && !e.out { // the only live endpoint
			return slot{ep: e}, e.inflight < p.per
		}
	}
	for _, e := range p.eps {
		if e.inflight < p.per && (best == nil || e.until.Before(best.until)) {
			best = e
		}
	}
	return slot{ep: best, whileOut: true}, best != nil
}

// release gives s back with the outcome of its attempt.
func (p *pool) release(s slot, resp Response, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	e := s.ep
	e.inflight--
	if s.probe {
		e.probing = false
	}
	if p.waiting > 0 {
		close(p.wake)
		p.wake = make(chan struct{})
	}
	if err == nil {
		e.st.Answers++
		if resp.Usage.Known {
			e.st.PromptTokens += int64(resp.Usage.PromptTokens)
			e.st.CompletionTokens += int64(resp.Usage.CompletionTokens)
		}
		e.fails, e.out, e.until = 0, false, time.Time{}
		return
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return // the caller gave up: that says nothing of the endpoint
	}
	e.st.Errors++
	msg := strings.TrimPrefix(strings.TrimPrefix(err.Error(), "llm: POST "+e.url+": "), "llm: ")
	e.st.LastError = clip([]byte(msg), maxLastError)
	transport := errors.Is(err, errTransport)
	var apiErr *APIError
	if !transport && !errors.Is(err, ErrTimeout) && !(errors.As(err, &apiErr) && apiErr.StatusCode >= 500) {
		return // the request's fault, or a busy server: the endpoint stays
	}
	if e.out && !s.whileOut {
		return // sent before it went out: already counted
	}
	e.fails++
	if !e.out && !transport && e.fails < outAfter {
		return
	}
	if !e.out {
		e.out = true
		e.st.Outs++
	}
	e.until = p.now().Add(p.outFor(e.fails))
}

// outFor is how long an endpoint with fails failures in a row stays out.
func (p *pool) outFor(fails int) time.Duration {
	d := p.backoff.Initial
	for i := 1; i < fails && d < p.backoff.Max; i++ {
		d *= 2
	}
	return min(d, p.backoff.Max)
}

// liveOther reports whether an endpoint other than url's is in rotation.
func (p *pool) liveOther(url string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, o := range p.eps {
		if o.url != url && !o.out {
			return true
		}
	}
	return false
}

// allOut lists every endpoint with its last error when none is live, and
// returns "" otherwise.
func (p *pool) allOut() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var b strings.Builder
	for i, e := range p.eps {
		if !e.out {
			return ""
		}
		if i > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%s (%s)", e.url, e.st.LastError)
	}
	return b.String()
}

// allOutError is a call given up while every endpoint was out: its text
// names each endpoint with its last error, and it wraps the call's last.
type allOutError struct {
	msg  string
	last error
}

func (e *allOutError) Error() string { return e.msg }
func (e *allOutError) Unwrap() error { return e.last }

// stats returns each endpoint's counters, in the order they were given.
func (p *pool) stats() []EndpointStats {
	p.mu.Lock()
	defer p.mu.Unlock()
	out := make([]EndpointStats, len(p.eps))
	for i, e := range p.eps {
		out[i] = e.st
		out[i].Live = !e.out
	}
	return out
}

// health is the endpoints' state for a progress line: "" with one
// endpoint, else how many are live and which are out (the first three).
func (p *pool) health() string {
	if len(p.eps) == 1 {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, e := range p.eps {
		if e.out {
			out = append(out, strings.TrimSuffix(e.url, "/chat/completions"))
		}
	}
	s := fmt.Sprintf("endpoints %d/%d live", len(p.eps)-len(out), len(p.eps))
	if len(out) > 3 {
		out = append(out[:3], fmt.Sprintf("+%d", len(out)-3))
	}
	if len(out) > 0 {
		s += ", out: " + strings.Join(out, " ")
	}
	return s
}
