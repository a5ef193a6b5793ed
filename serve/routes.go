package serve

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

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
