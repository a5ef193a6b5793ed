package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
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
	// one more gets 429 at once. With MaxBodyBytes it bounds memory.
	MaxInflight int
	// Timeouts of the HTTP server: reading the headers (default 5 s), the
	// whole request (10 s; a client sending its body slower is cut off),
	// writing the response (10 s), idle keep-alive connections (60 s).
	ReadHeaderTimeout, ReadTimeout, WriteTimeout, IdleTimeout time.Duration
	// ShutdownTimeout bounds how long Serve waits for in-flight requests
	// once its context is done (default 10 s).
	ShutdownTimeout time.Duration
	// Critic fills the confidence of an agent given as raw text without
	// one with the critic's read from the text (answer.Read's Critic, the
	// reader a replay or import with the critic uses): for a policy
	// trained on a replay with critic=on. Off by default: the confidence
	// is then what the request gives, missing when absent. A policy whose
	// checkpoint says otherwise (checkpoints.ConfidenceSource) is served
	// anyway, with a warning logged and in PolicyInfo.Warnings.
	Critic bool
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
	metrics  *metrics
	mux      *http.ServeMux
	reloadMu sync.Mutex
	stopping atomic.Bool
	bufs     sync.Pool // *bytes.Buffer for bodies and error responses
	outs     sync.Pool // *[]byte for decide responses
}

// New returns a server for cfg, loading cfg.PolicyPath when it is set.
func New(cfg Config) (*Server, error) {
	cfg.defaults()
	s := &Server{cfg: cfg, sem: make(chan struct{}, cfg.MaxInflight), metrics: newMetrics()}
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
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: s.cfg.ReadHeaderTimeout,
		ReadTimeout:       s.cfg.ReadTimeout,
		WriteTimeout:      s.cfg.WriteTimeout,
		IdleTimeout:       s.cfg.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(s.cfg.Log.Handler(), slog.LevelWarn),
	}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
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

func (s *Server) handleReload(w http.ResponseWriter, r *http.Request) {
	info, err := s.Reload()
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, &ErrorBody{Kind: "reload", Error: err.Error()})
		return
	}
	s.writeJSON(w, http.StatusOK, info)
}

// jsonContentType is shared by every response: net/http copies the header
// when it writes it, and assigning it spares Header.Set's allocation.
var jsonContentType = []string{"application/json"}

func (s *Server) handleDecide(w http.ResponseWriter, r *http.Request) {
	select {
	case s.sem <- struct{}{}:
		defer func() { <-s.sem }()
	default:
		w.Header().Set("Retry-After", "1")
		s.writeError(w, http.StatusTooManyRequests, &ErrorBody{Kind: "overloaded",
			Error: fmt.Sprintf("more than %d decide requests in flight; retry later", s.cfg.MaxInflight)})
		return
	}
	s.metrics.inflight.Inc()
	defer s.metrics.inflight.Dec()
	p := s.policy.Load()
	if p == nil {
		s.writeError(w, http.StatusServiceUnavailable, &ErrorBody{Kind: "not_ready", Error: "no policy loaded"})
		return
	}

	buf := s.bufs.Get().(*bytes.Buffer)
	defer s.putBuf(buf)
	buf.Reset()
	body := r.Body // net/http stops it at a declared Content-Length
	if r.ContentLength < 0 || r.ContentLength > s.cfg.MaxBodyBytes {
		body = http.MaxBytesReader(w, r.Body, s.cfg.MaxBodyBytes)
	}
	if _, err := buf.ReadFrom(body); err != nil {
		s.bodyError(w, err)
		return
	}
	a := arenaPool.Get().(*arena)
	defer a.put()
	req := &a.req
	if eb := decodeIn(buf.Bytes(), req, a); eb != nil {
		s.writeError(w, http.StatusBadRequest, eb)
		return
	}
	ds, fe := req.checkIn(a, s.cfg.Critic)
	if fe != nil {
		s.writeError(w, http.StatusBadRequest, &ErrorBody{Kind: "invalid", Error: fe.Error(), Field: fe.field})
		return
	}
	resp, err := p.decide(req, ds, a)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, &ErrorBody{Kind: "internal", Error: err.Error()})
		return
	}
	var counts [metapolicy.NumActions]int
	for _, res := range resp.results() {
		for _, d := range res.Agents {
			counts[d.Action]++
		}
	}
	for a, n := range counts {
		if n > 0 {
			s.metrics.decisions[a].Add(float64(n))
		}
	}
	out := s.outs.Get().(*[]byte)
	defer func() {
		if cap(*out) <= 4<<20 {
			s.outs.Put(out)
		}
	}()
	b, err := appendResponse((*out)[:0], resp)
	if err != nil {
		s.writeError(w, http.StatusInternalServerError, &ErrorBody{Kind: "internal", Error: err.Error()})
		return
	}
	b = append(b, '\n')
	*out = b
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(http.StatusOK)
	w.Write(b)
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
			Error: fmt.Sprintf("body: not received within %v", s.cfg.ReadTimeout)})
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
		return &ErrorBody{Kind: "invalid", Field: field, Error: fmt.Sprintf("%s: %s, want %s", field, typ.Value, jsonType(typ.Type.String()))}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &ErrorBody{Kind: "bad_json", Error: "body: the JSON ends early"}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name, _ := strconv.Unquote(strings.TrimPrefix(err.Error(), "json: unknown field "))
		field := pathOfKey(b, name)
		if field == "" {
			field = name
		}
		return &ErrorBody{Kind: "invalid", Field: field, Error: field + ": unknown field"}
	}
	return &ErrorBody{Kind: "bad_json", Error: "body: " + strings.TrimPrefix(err.Error(), "json: ")}
}

// jsonType names a Go type by its JSON kind.
func jsonType(goType string) string {
	t := strings.TrimPrefix(goType, "*")
	switch {
	case strings.HasPrefix(t, "int"), strings.HasPrefix(t, "uint"):
		return "an integer"
	case strings.HasPrefix(t, "float"):
		return "a number"
	case t == "string":
		return "a string"
	case strings.HasPrefix(t, "[]"):
		return "an array"
	case t == "bool":
		return "a boolean"
	}
	return "an object"
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
	w.Header()["Content-Type"] = jsonContentType
	w.WriteHeader(code)
	w.Write(buf.Bytes())
}

// writeError writes an error body and counts it by kind.
func (s *Server) writeError(w http.ResponseWriter, code int, eb *ErrorBody) {
	s.metrics.errors.WithLabelValues(eb.Kind).Inc()
	s.writeJSON(w, code, eb)
}
