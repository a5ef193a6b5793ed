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
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/internal/jsonscan"
	"github.com/mpdf/mpdf/metapolicy"
)

// Config configures a Server. Zero values take the defaults below.
type Config struct {
	// PolicyPath is the policy file served (see LoadPolicy) and re-read by
	// Reload. Empty: the policy is given with SetPolicy.
	PolicyPath string
	// MaxBodyBytes bounds a request body (default 1 MiB: a batch of about
	// 10⁴ decisions); a longer one gets 413.
	MaxBodyBytes int64
	// MaxInflight bounds the decide requests served at once (default 64);
	// one more gets 429 at once (health checks and metrics are not
	// limited). With MaxBodyBytes it bounds memory.
	MaxInflight int
	// MaxConns bounds the open connections (default: as many as 1/16 of
	// MaxMemory holds at 32 KiB each, 1024 for 512 MiB). Each is counted
	// at 32 KiB out of the budget whether idle or not; at the cap a new
	// connection takes the place of the one idle longest (conns.go).
	MaxConns int
	// Timeouts of the HTTP server: reading the headers (default 5 s), the
	// whole request (10 s; a client sending its body slower is cut off),
	// writing the response (10 s), idle keep-alive connections (60 s).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownTimeout bounds how long Serve waits for in-flight requests
	// once its context is done (default 10 s).
	ShutdownTimeout time.Duration
	// RequestTimeout bounds a decide request's work, body read included,
	// from the handler's start (default WriteTimeout × 4/5): past it the
	// work stops (between deliberations) and the client gets 503 (kind
	// timeout, Retry-After), written before the write timeout would cut
	// the connection. Work also stops
	// when the client goes away. It must be shorter than WriteTimeout.
	RequestTimeout time.Duration
	// MaxMemory is the server's memory budget in bytes (default 512 MiB):
	// a decide request is admitted only when its estimated memory (see
	// budget.go: proportional to its body, by its shape) fits in what the
	// requests in flight leave of it; beyond, 503 with Retry-After, and a
	// request that alone would not fit gets 413. TuneRuntime also sets the
	// garbage collector's soft limit from it.
	MaxMemory int64
	// GOGC, when > 0, is the garbage collector's target percentage that
	// TuneRuntime sets (as the GOGC environment variable).
	GOGC int
	// Critic fills the confidence of an agent given as raw text without
	// one with the critic's read from the text (answer.Read's Critic, the
	// reader a replay or import with the critic uses): for a policy
	// trained on a replay with critic=on. Off by default: the confidence
	// is then what the request gives, missing when absent. A policy whose
	// checkpoint says otherwise (checkpoints.ConfidenceSource) is served
	// anyway, with a warning logged and in PolicyInfo.Warnings.
	Critic bool
	// AllowReload lets POST /v1/reload re-read PolicyPath (off by
	// default: any process that reaches the port could make the server
	// re-read its file). Even then a reload is taken only as an
	// application/json request without an Origin header: never from a web
	// page. SIGHUP (ListenAndServe) and Reload reload whatever it says.
	AllowReload bool
	// Log receives start, reload and shutdown events; nil discards them.
	Log *slog.Logger
}

func (c *Config) defaults() {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = 1 << 20
	}
	if c.MaxInflight <= 0 {
		c.MaxInflight = 64
	}
	def(&c.ReadHeaderTimeout, 5*time.Second)
	def(&c.ReadTimeout, 10*time.Second)
	def(&c.WriteTimeout, 10*time.Second)
	def(&c.IdleTimeout, 60*time.Second)
	def(&c.ShutdownTimeout, 10*time.Second)
	def(&c.RequestTimeout, c.WriteTimeout*4/5)
	if c.MaxMemory <= 0 {
		c.MaxMemory = defaultMaxMemory
	}
	if c.MaxConns <= 0 {
		c.MaxConns = defaultMaxConns(c.MaxMemory)
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
}

// Server serves a policy over HTTP. It is an http.Handler; Serve runs it
// with the configured limits and shuts down gracefully. It keeps no state
// between requests other than the policy, so any number of replicas can
// stand behind a load balancer.
type Server struct {
	cfg      Config
	policy   atomic.Pointer[Policy]
	sem      chan struct{}
	budget   budget
	metrics  *metrics
	mux      *http.ServeMux
	conns    atomic.Pointer[connLimit] // Serve's listener
	reloadMu sync.Mutex
	stopping atomic.Bool
	bufs     sync.Pool // *bytes.Buffer for bodies and error responses
	outs     sync.Pool // *[]byte for decide responses
}

// New returns a server for cfg, loading cfg.PolicyPath when it is set.
func New(cfg Config) (*Server, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg.defaults()
	s := &Server{cfg: cfg, sem: make(chan struct{}, cfg.MaxInflight), metrics: newMetrics()}
	s.budget.pool = admitPool(cfg.MaxMemory, cfg.MaxConns)
	s.budget.gauge = s.metrics.reserved
	s.bufs.New = func() any { return new(bytes.Buffer) }
	s.outs.New = func() any { return new([]byte) }
	if cfg.PolicyPath != "" {
		p, err := LoadPolicy(cfg.PolicyPath)
		if err != nil {
			return nil, err
		}
		s.SetPolicy(p)
	}
	s.routes()
	return s, nil
}

// SetPolicy serves p from now on; requests already running finish on the
// policy they started with. A confidence source that does not match
// Config.Critic is logged as a warning (Info's Warnings).
func (s *Server) SetPolicy(p *Policy) {
	for _, w := range s.Info(p).Warnings {
		s.cfg.Log.Warn(w, "policy", p.info.Name, "confidence_source", p.info.ConfidenceSource, "critic", s.cfg.Critic)
	}
	s.policy.Store(p)
}

// Info describes p as this server serves it: p.Info() with the server's
// Critic and the warnings of criticWarnings.
func (s *Server) Info(p *Policy) PolicyInfo {
	info := p.info
	info.Critic = s.cfg.Critic
	if w := criticWarning(info.ConfidenceSource, s.cfg.Critic); w != "" {
		info.Warnings = []string{w}
	}
	return info
}

// criticWarning says what is wrong when a policy whose confidence came from
// src is served with or without the text critic; "" when nothing is.
// Serving is not refused: a client may pass the confidence itself (the
// text critic's, computed on its side), which the server cannot tell.
func criticWarning(src string, critic bool) string {
	if !checkpoints.CriticMismatch(src, critic) {
		return ""
	}
	switch {
	case src == checkpoints.ConfidenceTextCritic && !critic:
		return "the policy trained with the text critic's confidence (a replay with critic=on) but the server runs without the critic (mpdf serve --critic, Config.Critic): agents given as text without a confidence reach it with the confidence missing"
	case critic && src == checkpoints.ConfidenceNone:
		return "the server fills the confidence from the text (critic) but the policy trained with it missing (a replay without critic=on): it sees an input it never trained on"
	case critic && src == checkpoints.ConfidenceGiven:
		return "the server fills the confidence from the text (critic) but the policy trained on the simulator's confidence, a different signal"
	case critic && src == checkpoints.ConfidenceUnknown:
		return "the server fills the confidence from the text (critic) but the policy file does not record where its training confidence came from"
	}
	return ""
}

// Policy returns the policy being served; nil before one is set.
func (s *Server) Policy() *Policy { return s.policy.Load() }

// Reload re-reads cfg.PolicyPath and swaps it in. A file that fails to load
// leaves the current policy serving, and the error says why. Requests in
// flight are not disturbed: each runs on the policy it loaded at its start.
func (s *Server) Reload() (PolicyInfo, error) {
	s.reloadMu.Lock()
	defer s.reloadMu.Unlock()
	if s.cfg.PolicyPath == "" {
		s.metrics.reloads.WithLabelValues("failed").Inc()
		return PolicyInfo{}, errors.New("serve: reload: the server has no policy file")
	}
	p, err := LoadPolicy(s.cfg.PolicyPath)
	if err != nil {
		s.metrics.reloads.WithLabelValues("failed").Inc()
		s.cfg.Log.Error("reload failed; the previous policy keeps serving", "err", err)
		return PolicyInfo{}, fmt.Errorf("serve: reload (the previous policy keeps serving): %w", err)
	}
	s.SetPolicy(p)
	s.metrics.reloads.WithLabelValues("ok").Inc()
	s.cfg.Log.Info("policy reloaded", "path", s.cfg.PolicyPath, "step", p.info.Step)
	return s.Info(p), nil
}

// Serve serves HTTP on ln until ctx is done, then stops accepting
// connections, marks itself not ready, and waits up to ShutdownTimeout for
// the requests in flight to finish. It returns nil after a clean shutdown.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	cl := newConnLimit(ln, s.cfg.MaxConns, s.metrics)
	s.conns.Store(cl)
	hs := &http.Server{
		Handler:           s,
		ConnState:         cl.connState,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(cl) }()
	s.cfg.Log.Info("serving", "addr", ln.Addr().String())
	select {
	case err := <-errc:
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}
	s.stopping.Store(true)
	s.cfg.Log.Info("shutting down; waiting for requests in flight", "timeout", s.cfg.ShutdownTimeout)
	sctx, cancel := context.WithTimeout(context.Background(), s.cfg.ShutdownTimeout)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		return fmt.Errorf("serve: shutdown: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve: %w", err)
	}
	return nil
}

// ListenAndServe listens on addr (host:port) and calls Serve.
func (s *Server) ListenAndServe(ctx context.Context, addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("serve: %w", err)
	}
	return s.Serve(ctx, ln)
}

// Routes of the API, as api/openapi.json lists them.
const (
	routeDecide  = "/v1/decide"
	routePolicy  = "/v1/policy"
	routeReload  = "/v1/reload"
	routeHealth  = "/healthz"
	routeReady   = "/readyz"
	routeMetrics = "/metrics"
)

// route is one endpoint: its path, its only method, its handler.
type route struct {
	path, method string
	handler      func(s *Server) http.HandlerFunc
}

// apiRoutes lists every endpoint; TestOpenAPIMatchesTypes holds
// api/openapi.json to it.
var apiRoutes = []route{
	{routeDecide, http.MethodPost, func(s *Server) http.HandlerFunc { return s.handleDecide }},
	{routePolicy, http.MethodGet, func(s *Server) http.HandlerFunc { return s.handlePolicy }},
	{routeReload, http.MethodPost, func(s *Server) http.HandlerFunc { return s.handleReload }},
	{routeHealth, http.MethodGet, func(s *Server) http.HandlerFunc { return s.handleHealth }},
	{routeReady, http.MethodGet, func(s *Server) http.HandlerFunc { return s.handleReady }},
	{routeMetrics, http.MethodGet, func(s *Server) http.HandlerFunc { return s.metrics.handler.ServeHTTP }},
}

// routes registers the handlers by path; each checks its own method, so
// that a wrong method gets a JSON 405 like every other error.
func (s *Server) routes() {
	s.mux = http.NewServeMux()
	for _, r := range apiRoutes {
		s.mux.HandleFunc(r.path, s.only(r.method, r.handler(s)))
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, http.StatusNotFound, &ErrorBody{Kind: "not_found", Error: fmt.Sprintf("no route %s", r.URL.Path)})
	})
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	s.writeJSON(w, http.StatusOK, Health{Status: "ok"})
}

var statusWriters = sync.Pool{New: func() any { return new(statusWriter) }}

// statusWriter remembers the status code for the metrics.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

// Unwrap lets http.ResponseController reach the connection.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// ServeHTTP implements http.Handler, recording every request in the metrics.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	sw := statusWriters.Get().(*statusWriter)
	defer func() {
		*sw = statusWriter{}
		statusWriters.Put(sw)
	}()
	*sw = statusWriter{ResponseWriter: w}
	s.mux.ServeHTTP(sw, r)
	route := "other"
	for _, rt := range apiRoutes {
		if r.URL.Path == rt.path {
			route = rt.path
		}
	}
	if sw.code == 0 {
		sw.code = http.StatusOK
	}
	s.metrics.observe(route, sw.code, time.Since(start).Seconds())
}

func (s *Server) only(method string, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Method != method {
			w.Header().Set("Allow", method)
			s.writeError(w, http.StatusMethodNotAllowed, &ErrorBody{Kind: "method",
				Error: fmt.Sprintf("method %s not allowed on %s, use %s", r.Method, r.URL.Path, method)})
			return
		}
		h(w, r)
	}
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	switch {
	case s.stopping.Load():
		s.writeError(w, http.StatusServiceUnavailable, &ErrorBody{Kind: "not_ready", Error: "shutting down"})
	case s.policy.Load() == nil:
		s.writeError(w, http.StatusServiceUnavailable, &ErrorBody{Kind: "not_ready", Error: "no policy loaded"})
	default:
		s.writeJSON(w, http.StatusOK, Health{Status: "ready"})
	}
}

func (s *Server) handlePolicy(w http.ResponseWriter, r *http.Request) {
	p := s.policy.Load()
	if p == nil {
		s.writeError(w, http.StatusServiceUnavailable, &ErrorBody{Kind: "not_ready", Error: "no policy loaded"})
		return
	}
	s.writeJSON(w, http.StatusOK, s.Info(p))
}

// handleReload reloads the policy on POST /v1/reload, only when the
// server allows it (Config.AllowReload), only for a JSON request (an
// application/json body cannot be sent cross-origin by a web page without
// a CORS preflight, which this server never grants), and never for a
// request from a web page at all (one with an Origin header: a browser
// sends it on every POST, a page of a rebound DNS name included, and no
// other client needs to). The body is empty or {}.
func (s *Server) handleReload(w http.ResponseWriter, r *http.Request) {
	switch {
	case !s.cfg.AllowReload:
		s.writeError(w, http.StatusForbidden, &ErrorBody{Kind: "forbidden",
			Error: "reload over HTTP is off on this server (it reloads on SIGHUP; mpdf serve --allow-reload, Config.AllowReload, turns it on)"})
		return
	case r.Header.Get("Origin") != "":
		s.writeError(w, http.StatusForbidden, &ErrorBody{Kind: "forbidden",
			Error: "reload is not taken from a web page (the request has an Origin header)"})
		return
	case !isJSON(r.Header.Get("Content-Type")):
		s.writeError(w, http.StatusUnsupportedMediaType, &ErrorBody{Kind: "content_type",
			Error: fmt.Sprintf("Content-Type %s, want application/json", quote(r.Header.Get("Content-Type")))})
		return
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, 1<<10))
	if t := bytes.TrimSpace(b); err != nil || len(t) > 0 && !bytes.Equal(t, []byte("{}")) {
		s.writeError(w, http.StatusBadRequest, &ErrorBody{Kind: "bad_json", Error: "body: want none, or {}"})
		return
	}
	info, err := s.Reload()
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, &ErrorBody{Kind: "reload", Error: err.Error()})
		return
	}
	s.writeJSON(w, http.StatusOK, info)
}

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

// setReadDeadline sets the read deadline of w's connection, when w reaches
// one (http.ResponseController's way, without its error for a writer that
// does not, and without its allocation).
func setReadDeadline(w http.ResponseWriter, t time.Time) {
	if c, ok := unwrapTo[interface{ SetReadDeadline(time.Time) error }](w); ok {
		_ = c.SetReadDeadline(t)
	}
}

// setWriteDeadline sets the write deadline of w's connection, as
// setReadDeadline does the read deadline.
func setWriteDeadline(w http.ResponseWriter, t time.Time) {
	if c, ok := unwrapTo[interface{ SetWriteDeadline(time.Time) error }](w); ok {
		_ = c.SetWriteDeadline(t)
	}
}

// flushConn sends what w has buffered, and says whether that failed.
func flushConn(w http.ResponseWriter) error {
	if c, ok := unwrapTo[interface{ FlushError() error }](w); ok {
		return c.FlushError()
	}
	return nil
}

// unwrapTo finds the writer under w (through Unwrap) that implements T.
func unwrapTo[T any](w http.ResponseWriter) (T, bool) {
	for {
		if v, ok := w.(T); ok {
			return v, true
		}
		u, ok := w.(interface{ Unwrap() http.ResponseWriter })
		if !ok {
			var zero T
			return zero, false
		}
		w = u.Unwrap()
	}
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

// decodeJSON decodes one JSON object from b into v, strictly: unknown
// fields and trailing data are errors. The error names the field when the
// decoder says which.
func decodeJSON(b []byte, v any) *ErrorBody {
	if len(bytes.TrimSpace(b)) == 0 {
		return &ErrorBody{Kind: "bad_json", Error: "body: empty, want a JSON object"}
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, terr := dec.Token(); terr != io.EOF {
			return &ErrorBody{Kind: "bad_json", Error: fmt.Sprintf("body: offset %d: data after the JSON object", dec.InputOffset())}
		}
		return nil
	}
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return &ErrorBody{Kind: "bad_json", Error: fmt.Sprintf("body: offset %d: %s", syn.Offset, strings.TrimPrefix(syn.Error(), "json: "))}
	case errors.As(err, &typ):
		field := pathAtOffset(b, typ.Offset)
		if field == "" {
			return &ErrorBody{Kind: "bad_json", Error: fmt.Sprintf("body: %s, want a JSON object", typ.Value)}
		}
		if m := jsonscan.TypeMismatch(typ.Value, typ.Type); m != "" {
			return &ErrorBody{Kind: "invalid", Field: field, Error: field + ": " + clipLiteral(m, strings.TrimPrefix(typ.Value, "number "))}
		}
		return &ErrorBody{Kind: "invalid", Field: field, Error: fmt.Sprintf("%s: %s, want %s", field, clip(typ.Value), jsonscan.Want(typ.Type))}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ErrorBody{Kind: "bad_json", Error: "body: the JSON ends early"}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		field := pathOfKey(b, name)
		if field == "" {
			field = clip(name)
		}
		return &ErrorBody{Kind: "invalid", Field: field, Error: field + ": unknown field"}
	}
	return &ErrorBody{Kind: "bad_json", Error: "body: " + strings.TrimPrefix(err.Error(), "json: ")}
}

func (s *Server) putBuf(b *bytes.Buffer) {
	if b.Cap() <= 4<<20 { // keep the pool from pinning rare huge buffers
		s.bufs.Put(b)
	}
}

// writeJSON writes v with status code.
func (s *Server) writeJSON(w http.ResponseWriter, code int, v any) {
	buf := s.bufs.Get().(*bytes.Buffer)
	defer s.putBuf(buf)
	buf.Reset()
	if err := json.NewEncoder(buf).Encode(v); err != nil {
		s.metrics.errors.WithLabelValues("internal").Inc()
		http.Error(w, `{"error":"encoding the response failed","kind":"internal"}`, http.StatusInternalServerError)
		return
	}
	// A fresh write timeout: an answer written late (a 503 at the request
	// timeout, a 408 at the read timeout, on a loaded machine) still goes
	// out with its status rather than be cut by the deadline net/http set
	// when the headers were read.
	setWriteDeadline(w, time.Now().Add(s.cfg.WriteTimeout))
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// writeError writes an error body and counts it by kind.
func (s *Server) writeError(w http.ResponseWriter, code int, eb *ErrorBody) {
	clipErrorBody(eb)
	s.metrics.errors.WithLabelValues(eb.Kind).Inc()
	s.writeJSON(w, code, eb)
}
