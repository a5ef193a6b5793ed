package serve

// The request timeout.
//
// Time: a decide request is answered 503 (kind timeout, Retry-After) at
// Config.RequestTimeout, before the write timeout would cut the connection
// without a status. Its work runs on a goroutine of its own (the handler
// answers at the deadline whatever the work is doing) unless the body is
// small (≤ 64 KiB) and has no text, whose work checks the deadline every
// few microseconds on the handler's goroutine. The work stops at its next
// check of the deadline (every 8 deliberations), and when the client goes away
// (counted as 499 in /metrics, never sent). Both are logged
// (TestRequestTimeout, TestClientGoneStopsWork). Serve drains the requests
// in flight when its context ends.

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"
)

// decideJob is an admitted decide request's work. It runs on a goroutine
// of its own, so that the handler answers 503 at the request's deadline
// (or gives up when the client goes) whatever the work is doing: a single
// text can take longer to read than the deadline leaves, and net/http cuts
// a connection silently at its write timeout. The work stops at its next
// check of the stopper, and whoever of the two finishes last releases the
// request's memory, buffers and slot.
type decideJob struct {
	s    *Server
	p    *Policy
	st   stopper
	buf  *bytes.Buffer
	a    *arena
	held int64 // bytes of the memory budget reserved
	// decoded says the fast path has decoded the request (else work
	// decodes it with encoding/json).
	decoded bool
	// text says agents come as text: reading one is a step the stopper
	// cannot interrupt.
	text bool
	// state: jobRunning, then jobDone (the handler answers from the
	// results below) or jobAbandoned (the handler has answered; the work
	// releases everything when it ends).
	state atomic.Int32
	// Results.
	resp    *DecideResponse
	eb      *ErrorBody
	code    int
	stopped bool
}

const (
	jobRunning = iota
	jobDone
	jobAbandoned
)

// inlineBody is the largest body whose work runs on the handler's own
// goroutine, unless an agent comes as text: handing a small request to
// another goroutine doubled its CPU (the wake-up of an idle thread), and
// the work of a small body without texts takes microseconds between two
// checks of its stopper, well within the margin between the request and
// write timeouts. A text is read in one step the stopper cannot cut short,
// so a request with texts always runs on a goroutine of its own.
const inlineBody = 64 << 10

// run does the job's work on a goroutine of its own and hands the result to
// the handler waiting in wait, or releases the job if the handler has
// abandoned it.
func (j *decideJob) run() {
	j.work()
	if j.state.CompareAndSwap(jobRunning, jobDone) {
		j.a.done <- struct{}{}
		return
	}
	j.release()
}

// runInline does the job's work on the handler's goroutine.
func (j *decideJob) runInline() {
	j.work()
	j.state.Store(jobDone)
}

// work decodes, checks and decides the request into the job's results.
func (j *decideJob) work() {
	req := &j.a.req
	var eb *ErrorBody
	if !j.decoded {
		eb = decodeSlow(j.buf.Bytes(), req, nil)
	}
	if eb != nil {
		j.eb, j.code = eb, http.StatusBadRequest
	} else if ds, fe := req.checkIn(j.st, j.a, j.s.cfg.Critic); fe == errStopped {
		j.stopped = true
	} else if fe != nil {
		j.eb, j.code = &ErrorBody{Kind: "invalid", Error: fe.Error(), Field: fe.field}, http.StatusBadRequest
	} else if fe := j.p.fits(ds, req.Deliberations == nil); fe != nil {
		j.eb, j.code = &ErrorBody{Kind: "invalid", Error: fe.Error(), Field: fe.field}, http.StatusBadRequest
	} else if n := responseBound(ds); n > MaxResponseBytes {
		j.eb, j.code = &ErrorBody{Kind: "too_large", Error: fmt.Sprintf("response: could be %d MiB, more than the %d MiB a response may be (long answers repeat as concede targets and team answer); split the batch or shorten the answers", n>>20, MaxResponseBytes>>20)}, http.StatusRequestEntityTooLarge
	} else if resp, err := j.p.decide(j.st, req, ds, j.a); err == errStopped {
		j.stopped = true
	} else if err == nil {
		if err = checkResponse(resp); err == nil {
			j.resp = resp
		}
		if err != nil {
			j.eb, j.code = &ErrorBody{Kind: "internal", Error: err.Error()}, http.StatusInternalServerError
		}
	} else {
		j.eb, j.code = &ErrorBody{Kind: "internal", Error: err.Error()}, http.StatusInternalServerError
	}
}

// wait waits for the work until the request's deadline or its client's
// departure, and reports whether the work finished (then the caller
// releases the job) or was abandoned.
func (j *decideJob) wait(ctx context.Context) bool {
	d := time.Until(j.st.deadline)
	t := j.a.timer
	if t == nil {
		t = time.NewTimer(d)
		j.a.timer = t
	} else {
		t.Reset(d)
	}
	// The timer is the arena's: it is stopped before the job may be
	// abandoned, since the work then puts the arena back.
	select {
	case <-j.a.done:
		t.Stop()
		return true
	case <-t.C:
	case <-ctx.Done():
		t.Stop()
	}
	if j.state.CompareAndSwap(jobRunning, jobAbandoned) {
		return false
	}
	<-j.a.done // finished as the deadline came
	return true
}

// release gives back what the job holds: its memory reservation, body
// buffer, concurrency slot and arena (which holds the job: last).
func (j *decideJob) release() {
	s, a := j.s, j.a
	s.budget.release(&j.held)
	if j.buf != nil {
		s.putBuf(j.buf)
	}
	*j = decideJob{}
	<-s.sem
	a.put()
}
