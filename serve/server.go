package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"

	"github.com/mpdf/mpdf/checkpoints"
)

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
