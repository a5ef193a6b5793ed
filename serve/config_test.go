package serve

import (
	"strings"
	"testing"
	"time"
)

// TestConfigValidate: a setting no server runs with is refused, naming the
// flag, rather than silently replaced by the default.
func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		says string
	}{
		{Config{MaxInflight: -5}, "--max-inflight -5: negative"},
		{Config{MaxBodyBytes: -1 << 10}, "--max-body-kib -1: negative"},
		{Config{ReadTimeout: -time.Second}, "--read-timeout -1s: negative"},
		{Config{WriteTimeout: -time.Second}, "--write-timeout -1s: negative"},
		{Config{ShutdownTimeout: -time.Second}, "--shutdown-timeout -1s: negative"},
		{Config{RequestTimeout: -time.Second}, "--request-timeout -1s: negative"},
		{Config{GOGC: -7}, "--gogc -7: negative"},
		{Config{MaxMemory: -1 << 20}, "--max-memory-mib -1: negative"},
		{Config{MaxMemory: 64 << 20}, "--max-memory-mib 64: less than"},
		{Config{MaxBodyBytes: 512 << 20}, "cannot take in one body"},
		{Config{MaxBodyBytes: 2 << 30}, "more than the 1024MiB"},
		{Config{RequestTimeout: 10 * time.Second}, "not shorter than --write-timeout 10s"},
		{Config{WriteTimeout: time.Second, RequestTimeout: 2 * time.Second}, "not shorter than --write-timeout 1s"},
	} {
		c.cfg.PolicyPath = writeTestPolicy(t)
		_, err := New(c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%+v: %v, want an error saying %q", c.cfg, err, c.says)
		}
	}
	for _, cfg := range []Config{{}, {MaxInflight: 1, MaxBodyBytes: 1, MaxMemory: 128 << 20, GOGC: 400, WriteTimeout: time.Second, RequestTimeout: time.Second / 2}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}
