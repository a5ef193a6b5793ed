package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
)

// ListenAndServe serves cfg's policy on addr until ctx is done, as mpdf
// serve does: it tunes the runtime (Config.TuneRuntime), says "listening
// on http://ADDR" on announce (the address taken, for a port 0), and
// reloads the policy on SIGHUP (a file that fails to load leaves the
// previous one serving; the server logs the outcome).
func ListenAndServe(ctx context.Context, cfg Config, addr string, announce io.Writer) error {
	cfg.TuneRuntime()
	// The policy loads while ctx is watched: SIGTERM ends a start that a
	// slow policy file holds up.
	type made struct {
		s   *Server
		err error
	}
	mc := make(chan made, 1)
	go func() {
		s, err := New(cfg)
		mc <- made{s, err}
	}()
	var s *Server
	select {
	case m := <-mc:
		if m.err != nil {
			return m.err
		}
		s = m.s
	case <-ctx.Done():
		return fmt.Errorf("serve: stopped while loading the policy: %w", context.Cause(ctx))
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(announce, "listening on http://%s\n", ln.Addr())
	hup := make(chan os.Signal, 1)
	signal.Notify(hup, syscall.SIGHUP)
	defer signal.Stop(hup)
	go func() {
		for range hup {
			_, _ = s.Reload()
		}
	}()
	return s.Serve(ctx, ln)
}
