package main

import (
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/serve"
)

func init() { register[serveFlags]("serve --policy FILE [--addr HOST:PORT] [flags]", cobra.NoArgs) }

// serveFlags are serve's flags.
type serveFlags struct {
	cfg   serve.Config
	addr  string
	quiet bool
}

// Add defines the flags on cmd.
func (fl *serveFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.cfg.PolicyPath, "policy", "p", "; served: a learned one only")
	f.StringVar(&fl.addr, "addr", "127.0.0.1:8080", "address to listen on (port 0 picks a free one)")
	f.Var(cliflag.Scaled(&fl.cfg.MaxBodyBytes, 10, 1024), "max-body-kib", "largest request body in KiB (413 beyond)")
	f.IntVar(&fl.cfg.MaxInflight, "max-inflight", 64, "decide requests served at once (429 beyond)")
	f.IntVar(&fl.cfg.MaxConns, "max-conns", 0, "open connections at most, each counted at 32 KiB of --max-memory-mib; at the cap a new one replaces the one idle longest, else waits (0 = what 1/16 of the budget holds: 1024 for 512 MiB)")
	f.Var(cliflag.Scaled(&fl.cfg.MaxMemory, 20, 512), "max-memory-mib", "memory budget in MiB: a decide request is admitted only if its estimated memory fits in what the requests in flight leave (503 with Retry-After beyond; 413 if it alone cannot); also the garbage collector's soft limit unless GOMEMLIMIT is set")
	f.DurationVar(&fl.cfg.ReadTimeout, "read-timeout", 0, "time to read a whole request (0 = 10s)")
	f.DurationVar(&fl.cfg.WriteTimeout, "write-timeout", 0, "time to write a response (0 = 10s)")
	f.DurationVar(&fl.cfg.RequestTimeout, "request-timeout", 0, "time a decide request may take, body read included, before it is answered 503 and its work stopped; shorter than --write-timeout (0 = 4/5 of it)")
	f.DurationVar(&fl.cfg.ShutdownTimeout, "shutdown-timeout", 0, "time given to requests in flight on SIGTERM (0 = 10s)")
	f.IntVar(&fl.cfg.GOGC, "gogc", 0, "garbage collector target percentage, as GOGC (0 = the GOGC environment variable's, else 100); 400 trims the tail at saturation for a few MB of heap")
	shared(f, &fl.cfg.Critic, "critic", "", "; here of agents given as text (for a policy trained on a replay with critic=on)")
	f.BoolVar(&fl.cfg.AllowReload, "allow-reload", false, "let POST /v1/reload re-read --policy (an application/json request without an Origin header only: never from a web page); SIGHUP reloads either way")
	shared(f, &fl.quiet, "quiet", "q", ": warnings and errors only")
	cliflag.Sets(cmd, "max-body-kib", "max_body_bytes") // their errors' words (FlagWords)
	cliflag.Sets(cmd, "max-memory-mib", "max_memory")
}

// config is the server's configuration from the flags, validated.
func (fl *serveFlags) config() (serve.Config, error) {
	cfg := fl.cfg
	if cfg.PolicyPath == "" {
		return cfg, fmt.Errorf("--policy is required")
	}
	level := slog.LevelInfo
	if fl.quiet {
		level = slog.LevelWarn
	}
	cfg.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	return cfg, cfg.Validate()
}

// Run serves until SIGTERM or SIGINT (serve.ListenAndServe).
func (fl *serveFlags) Run(cmd *cobra.Command, _ []string) error {
	cfg, err := fl.config()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(cmd.Context(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	return serve.ListenAndServe(ctx, cfg, fl.addr, cmd.OutOrStdout())
}
