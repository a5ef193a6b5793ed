package serve

import (
	"fmt"
	"os"
	"runtime/debug"
	"time"
)

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
