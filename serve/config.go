package serve

import (
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"time"
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

// Validate reports the first setting of c that no server can run with:
// a negative size, count, timeout or memory budget (zero means the
// default; a negative value used to fall back to it silently), a GOGC
// below zero, a timeout under minTimeout, a budget or MaxInflight past
// its range, or a memory budget too small for one request of the
// largest body. The error is a *SettingError naming the fields.
func (c *Config) Validate() error {
	const negative = "%s: negative; want 0 (the default) or more"
	for _, s := range []Setting{
		{"MaxBodyBytes", c.MaxBodyBytes}, {"MaxInflight", c.MaxInflight}, {"MaxMemory", c.MaxMemory}, {"MaxConns", c.MaxConns},
		{"ReadHeaderTimeout", c.ReadHeaderTimeout}, {"ReadTimeout", c.ReadTimeout}, {"WriteTimeout", c.WriteTimeout},
		{"IdleTimeout", c.IdleTimeout}, {"ShutdownTimeout", c.ShutdownTimeout}, {"RequestTimeout", c.RequestTimeout},
	} {
		if isNegative(s.Value) {
			return settingErr(negative, []Setting{s})
		}
	}
	if c.GOGC < 0 {
		return settingErr("%s: negative; want a percentage above 0, or 0 for the GOGC environment variable's", one("GOGC", c.GOGC))
	}
	for _, s := range []Setting{
		{"ReadHeaderTimeout", c.ReadHeaderTimeout}, {"ReadTimeout", c.ReadTimeout}, {"WriteTimeout", c.WriteTimeout},
		{"IdleTimeout", c.IdleTimeout}, {"RequestTimeout", c.RequestTimeout},
	} {
		if d := s.Value.(time.Duration); d > 0 && d < minTimeout {
			return settingErr("%s: shorter than the %v a server needs to answer at all; want at least that, or 0 for the default", []Setting{s}, minTimeout)
		}
	}
	if c.MaxMemory > maxMemoryLimit {
		return settingErr("%s: too large; want at most %s", one("MaxMemory", c.MaxMemory), sizeString(maxMemoryLimit))
	}
	if c.MaxInflight > maxInflightLimit {
		return settingErr("%s: too large; want at most %d", one("MaxInflight", c.MaxInflight), maxInflightLimit)
	}
	if c.MaxConns > maxConnsLimit {
		return settingErr("%s: too large; want at most %d", one("MaxConns", c.MaxConns), maxConnsLimit)
	}
	d := *c
	d.defaults()
	if d.MaxBodyBytes > maxBodyLimit {
		return settingErr("%s: more than the %s a request may have", one("MaxBodyBytes", d.MaxBodyBytes), sizeString(maxBodyLimit))
	}
	if d.MaxMemory < minMemory {
		return settingErr("%s: less than the %s the server needs", one("MaxMemory", d.MaxMemory), sizeString(minMemory))
	}
	if c.MaxConns > 0 && admitPool(d.MaxMemory, d.MaxConns) < admitPool(d.MaxMemory, 0)/2 {
		return settingErr("%s: more than half of what %s leaves to requests would go to connections (%s each); lower the first or raise the second",
			[]Setting{{"MaxConns", d.MaxConns}, {"MaxMemory", d.MaxMemory}}, sizeString(connCost))
	}
	if need, pool := bodyCost(d.MaxBodyBytes), admitPool(d.MaxMemory, d.MaxConns); need > pool {
		return settingErr("%s cannot take in one body of the largest size (%s needs %s; the budget leaves %s to requests): raise the first or lower the second",
			[]Setting{{"MaxMemory", d.MaxMemory}, {"MaxBodyBytes", d.MaxBodyBytes}}, sizeString(need), sizeString(pool))
	}
	if d.RequestTimeout >= d.WriteTimeout {
		return settingErr("%s: not shorter than %s; the server could not write its 503 in time",
			[]Setting{{"RequestTimeout", d.RequestTimeout}, {"WriteTimeout", d.WriteTimeout}})
	}
	return nil
}

// isNegative reports whether a setting's value is below zero.
func isNegative(v any) bool {
	switch v := v.(type) {
	case int64:
		return v < 0
	case int:
		return v < 0
	case time.Duration:
		return v < 0
	}
	return false
}

// Range limits of the settings (Validate). A timeout under minTimeout
// cuts every connection, health checks included, before a status can be
// written (1 ns used to start a server that reset them all); a budget past
// maxMemoryLimit would overflow the budget's arithmetic, and a MaxInflight
// past maxInflightLimit is a slot table larger than any budget can serve.
const (
	maxBodyLimit     = 1 << 30
	maxMemoryLimit   = 1 << 40
	maxInflightLimit = 1 << 16
	minTimeout       = 100 * time.Millisecond
)

// sizeString writes a byte count in MiB or KiB when it divides: sizes the
// server derives (limits, needs).
func sizeString(n int64) string {
	switch {
	case n != 0 && n%(1<<20) == 0:
		return fmt.Sprintf("%dMiB", n>>20)
	case n != 0 && n%(1<<10) == 0:
		return fmt.Sprintf("%dKiB", n>>10)
	}
	return fmt.Sprintf("%dB", n)
}

// TuneRuntime sets the process's garbage collector for c: GOGC when c.GOGC
// is set, and a soft memory limit (debug.SetMemoryLimit) at the memory
// budget, so that the collector works harder rather than let the heap
// pass the budget — unless GOMEMLIMIT is set in the environment, which
// wins. mpdf serve calls it; a library user serving in a process of its own
// may. It changes process-wide settings, so New does not call it.
func (c *Config) TuneRuntime() {
	d := *c
	d.defaults()
	if d.GOGC > 0 {
		debug.SetGCPercent(d.GOGC)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(gcLimit(d.MaxMemory))
	}
}
