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
// below zero, or a memory budget too small for one request of the
// largest body. The error names the mpdf serve flag that sets the field.
func (c *Config) Validate() error {
	neg := func(flag string, v int64, what string) error {
		if v < 0 {
			return fmt.Errorf("serve: --%s %s: negative; want 0 (the default) or more", flag, what)
		}
		return nil
	}
	dur := func(flag string, d time.Duration) error {
		if d < 0 {
			return fmt.Errorf("serve: --%s %v: negative; want 0 (the default) or more", flag, d)
		}
		return nil
	}
	durNoFlag := func(what string, d time.Duration) error { // no flag sets it
		if d < 0 {
			return fmt.Errorf("serve: %s %v: negative; want 0 (the default) or more", what, d)
		}
		return nil
	}
	for _, err := range []error{
		neg("max-body-kib", c.MaxBodyBytes, inUnit(c.MaxBodyBytes, 10)),
		neg("max-inflight", int64(c.MaxInflight), fmt.Sprint(c.MaxInflight)),
		neg("max-memory-mib", c.MaxMemory, inUnit(c.MaxMemory, 20)),
		durNoFlag("read-header timeout", c.ReadHeaderTimeout),
		dur("read-timeout", c.ReadTimeout),
		dur("write-timeout", c.WriteTimeout),
		durNoFlag("idle timeout", c.IdleTimeout),
		dur("shutdown-timeout", c.ShutdownTimeout),
		dur("request-timeout", c.RequestTimeout),
	} {
		if err != nil {
			return err
		}
	}
	if c.GOGC < 0 {
		return fmt.Errorf("serve: --gogc %d: negative; want a percentage above 0, or 0 for the GOGC environment variable's", c.GOGC)
	}
	d := *c
	d.defaults()
	if d.MaxBodyBytes > maxBodyLimit {
		return fmt.Errorf("serve: --max-body-kib %s: more than the %s a request may have", inUnit(d.MaxBodyBytes, 10), sizeString(maxBodyLimit))
	}
	if d.MaxMemory < minMemory {
		return fmt.Errorf("serve: --max-memory-mib %s: less than the %s the server needs", inUnit(d.MaxMemory, 20), sizeString(minMemory))
	}
	if need, pool := bodyCost(d.MaxBodyBytes), admitPool(d.MaxMemory); need > pool {
		return fmt.Errorf("serve: --max-memory-mib %s cannot take in one body of the largest size (--max-body-kib %s needs %s; the budget leaves %s to requests): raise it or lower --max-body-kib",
			inUnit(d.MaxMemory, 20), inUnit(d.MaxBodyBytes, 10), sizeString(need), sizeString(pool))
	}
	if d.RequestTimeout >= d.WriteTimeout {
		return fmt.Errorf("serve: --request-timeout %v: not shorter than --write-timeout %v; the server could not write its 503 in time", d.RequestTimeout, d.WriteTimeout)
	}
	return nil
}

// maxBodyLimit is the largest body a server accepts to be configured for.
const maxBodyLimit = 1 << 30

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

// inUnit writes n bytes in the unit of 2^shift bytes of its flag ("-1" for
// --max-body-kib -1), or as bytes when it does not divide.
func inUnit(n int64, shift uint) string {
	if n%(1<<shift) == 0 {
		return fmt.Sprint(n >> shift)
	}
	return fmt.Sprintf("(%d bytes)", n)
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
