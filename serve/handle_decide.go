package serve

import (
	"bytes"
	"errors"
	"fmt"
	"mime"
	"net"
	"net/http"
	"time"

	"github.com/mpdf/mpdf/metapolicy"
)

// POST /v1/decide: the handler, its admission (body, limits, memory), and
// the answers when a request cannot be decided.

// isJSON reports whether a Content-Type header is application/json (any
// parameters, such as a charset, allowed).
func isJSON(ct string) bool {
	mt, _, err := mime.ParseMediaType(ct)
	return err == nil && mt == "application/json"
}

// jsonContentType is shared by every response: net/http copies the header
// when it writes it, and assigning it spares Header.Set's allocation.
var jsonContentType = []string{"application/json"}

func (s *Server) handleDecide(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	select {
	case s.sem <- struct{}{}:
	default:
		w.Header().Set("Retry-After", "1")
		s.writeError(w, http.StatusTooManyRequests, &ErrorBody{Kind: "overloaded",
			Error: fmt.Sprintf("more than %d decide requests in flight; retry later", s.cfg.MaxInflight)})
		return
	}
	s.metrics.inflight.Inc()
	defer s.metrics.inflight.Dec()
	j := s.admit(w, r, start)
	if j == nil {
		return
	}
	if j.buf.Len() <= inlineBody && !j.text {
		j.runInline()
	} else {
		go j.run()
		if !j.wait(r.Context()) {
			s.stopped(w, r, start)
			return
		}
	}
	defer j.release()
	switch {
	case j.stopped:
		s.stopped(w, r, start)
		return
	case j.eb != nil:
		s.writeError(w, j.code, j.eb)
		return
	}
	resp := j.resp
	var counts [metapolicy.NumActions]int
	incomplete := 0
	for _, res := range resp.results() {
		for _, d := range res.Agents {
			counts[d.Action]++
		}
		if res.FeaturesIncomplete != "" {
			incomplete++
		}
	}
	if incomplete > 0 {
		s.cfg.Log.Warn("decide: features incomplete", "deliberations", incomplete, "why", HistoryMissing, "remote", r.RemoteAddr)
	}
	for a, n := range counts {
		if n > 0 {
			s.metrics.decisions[a].Add(float64(n))
		}
	}
	// The response is written as it is encoded, a chunk at a time, so that
	// its size (~190 bytes per agent, more with long answers) is never held
	// in memory whole.
	out := s.outs.Get().(*[]byte)
	defer func() {
		if cap(*out) <= 4<<20 {
			s.outs.Put(out)
		}
	}()
	// The write timeout counts from here: the work may have used most of
	// the time net/http's deadline (set when the headers were read) gave.
	setWriteDeadline(w, time.Now().Add(s.cfg.WriteTimeout))
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusOK)
	var werr error
	var written int64
	flush := func(b []byte) []byte {
		if werr == nil {
			_, werr = w.Write(b)
			written += int64(len(b))
		}
		return b[:0]
	}
	b, _ := appendResponse((*out)[:0], resp, flush) // run's checkResponse found no error
	b = append(b, '\n')
	*out = flush(b)
	if werr == nil && written > flushAfter {
		// A long response's last bytes sit in net/http's buffers: flushed
		// here, a cut at its end is seen too.
		werr = flushConn(w)
	}
	if werr != nil {
		s.cutShort(w, r, start, written, werr)
	}
}

// flushAfter is the response length past which handleDecide flushes the
// end of the response itself (shorter ones are written whole by net/http's
// flush at the end of the request, an extra write saved).
const flushAfter = 64 << 10

// statusCutShort is the status recorded (never sent) for a decide response
// whose 200 was sent but whose body was cut, by the write timeout or a
// network error: a 5xx, so that the metrics count it as the error it is,
// not as a 200.
const statusCutShort = 599

// cutShort records a response cut short: statusCutShort when the write
// timeout cut it, 499 when the client went away (any other write error;
// net/http cancels the request's context on either), counted in
// mpdf_serve_errors_total{kind="cut_short"} and logged.
func (s *Server) cutShort(w http.ResponseWriter, r *http.Request, start time.Time, written int64, err error) {
	code := statusClientGone
	if ne, ok := errors.AsType[net.Error](err); ok && ne.Timeout() {
		code = statusCutShort
	}
	if sw, ok := w.(*statusWriter); ok {
		sw.code = code
	}
	s.metrics.errors.WithLabelValues("cut_short").Inc()
	s.cfg.Log.Warn("decide response cut short; counted as an error", "code", code, "err", err, "written", written,
		"write_timeout", s.cfg.WriteTimeout, "remote", r.RemoteAddr, "elapsed", time.Since(start))
}

// admit reads and checks a decide request's body and reserves its memory,
// or answers it (and returns nil). The caller holds a slot of s.sem, which
// the job returned then owns.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, start time.Time) *decideJob {
	a := arenaPool.Get().(*arena)
	if a.done == nil {
		a.done = make(chan struct{}, 1)
	}
	j := &a.job // in the arena: a request allocates no job of its own
	*j = decideJob{s: s, a: a, p: s.policy.Load(), st: stopper{ctx: r.Context(), deadline: start.Add(s.cfg.RequestTimeout)}}
	ok := false
	defer func() {
		if !ok {
			j.release()
		}
	}()
	if j.p == nil {
		s.writeError(w, http.StatusServiceUnavailable, &ErrorBody{Kind: "not_ready", Error: "no policy loaded"})
		return nil
	}
	// The body is read under the request's deadline too.
	setReadDeadline(w, start.Add(min(s.cfg.RequestTimeout, s.cfg.ReadTimeout)))

	// Memory is reserved before the body is read (its declared length, or
	// the limit), then up to the estimate of the body as it is.
	n := r.ContentLength
	if n < 0 || n > s.cfg.MaxBodyBytes {
		n = s.cfg.MaxBodyBytes
	}
	if !s.budget.grow(&j.held, bodyCost(n)) {
		s.overMemory(w, bodyCost(n))
		return nil
	}
	j.buf = s.bufs.Get().(*bytes.Buffer)
	j.buf.Reset()
	body := r.Body // net/http stops it at a declared Content-Length
	if r.ContentLength < 0 || r.ContentLength > s.cfg.MaxBodyBytes {
		body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	} else {
		j.buf.Grow(int(r.ContentLength) + 1) // +1: ReadFrom's probe for the end
	}
	if _, err := j.buf.ReadFrom(body); err != nil {
		s.bodyError(w, err)
		return nil
	}
	// The fast path decodes the common shape (within what bodyCost
	// reserved) and measures it on the way; anything else is measured and
	// held to the strict rules by checkBody first, and decoded by work.
	shape, limit, fast := decodeFast(j.buf.Bytes(), &a.req, a)
	if !fast {
		var eb *ErrorBody
		if shape, eb = checkBody(j.buf.Bytes()); eb == nil && limit != nil {
			eb = &ErrorBody{Kind: "invalid", Error: limit.Error(), Field: limit.field}
		}
		if eb != nil {
			s.writeError(w, http.StatusBadRequest, eb)
			return nil
		}
	}
	j.decoded, j.text = fast, shape.MeasuredBytes > 0
	need := requestCost(j.buf.Len(), shape, s.cfg.Critic)
	if pool := s.budget.pool; need > pool {
		s.writeError(w, http.StatusRequestEntityTooLarge, &ErrorBody{Kind: "too_large",
			Error: fmt.Sprintf("body: would take about %d MiB to serve, more than the server's memory budget gives a request (%d MiB); split the batch", need>>20, pool>>20)})
		return nil
	}
	if !s.budget.grow(&j.held, need) {
		s.overMemory(w, need)
		return nil
	}
	ok = true
	return j
}

// overMemory answers a request that does not fit in the memory budget now.
func (s *Server) overMemory(w http.ResponseWriter, need int64) {
	w.Header().Set("Retry-After", "1")
	s.writeError(w, http.StatusServiceUnavailable, &ErrorBody{Kind: "overloaded",
		Error: fmt.Sprintf("the requests in flight hold the server's memory budget (this one needs about %d MiB); retry later", (need+1<<20-1)>>20)})
}

// statusClientGone is the status recorded (never sent) for a request whose
// client went away before its answer: nginx's 499.
const statusClientGone = 499

// stopped answers a request whose work stopped: 503 past its deadline,
// nothing (recorded as 499) when its client has gone. Both are logged.
func (s *Server) stopped(w http.ResponseWriter, r *http.Request, start time.Time) {
	if r.Context().Err() != nil {
		if sw, ok := w.(*statusWriter); ok {
			sw.code = statusClientGone
		}
		s.cfg.Log.Warn("decide stopped: the client went away", "remote", r.RemoteAddr, "elapsed", time.Since(start))
		return
	}
	s.cfg.Log.Warn("decide stopped: past the request timeout", "timeout", s.cfg.RequestTimeout, "remote", r.RemoteAddr, "bytes", r.ContentLength)
	w.Header().Set("Retry-After", "1")
	s.writeError(w, http.StatusServiceUnavailable, &ErrorBody{Kind: "timeout",
		Error: fmt.Sprintf("not decided within %v (the server's request timeout); split the batch or retry later", s.cfg.RequestTimeout)})
}

// results lists the response's results, single or batched.
func (r *DecideResponse) results() []Result {
	if r.Result != nil {
		return []Result{*r.Result}
	}
	return r.Results
}

// bodyError answers a failure to read the request body.
func (s *Server) bodyError(w http.ResponseWriter, err error) {
	var tooLarge *http.MaxBytesError
	var ne net.Error
	switch {
	case errors.As(err, &tooLarge):
		s.writeError(w, http.StatusRequestEntityTooLarge, &ErrorBody{Kind: "too_large",
			Error: fmt.Sprintf("body: longer than %d bytes (the server's limit); split the batch", tooLarge.Limit)})
	case errors.As(err, &ne) && ne.Timeout():
		s.writeError(w, http.StatusRequestTimeout, &ErrorBody{Kind: "timeout",
			Error: fmt.Sprintf("body: not received within %v", min(s.cfg.ReadTimeout, s.cfg.RequestTimeout))})
	default:
		s.writeError(w, http.StatusBadRequest, &ErrorBody{Kind: "bad_json", Error: "body: " + err.Error()})
	}
}
