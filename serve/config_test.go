package serve

import (
	"errors"
	"strings"
	"testing"
	"time"
)

// TestConfigValidate: a setting no server runs with is refused, naming the
// field (a *SettingError, which a caller words as its own setting: mpdf
// serve's flags), rather than silently replaced by the default.
func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		says string
	}{
		{Config{MaxInflight: -5}, "Config.MaxInflight -5: negative"},
		{Config{MaxBodyBytes: -1 << 10}, "Config.MaxBodyBytes -1024: negative"},
		{Config{ReadTimeout: -time.Second}, "Config.ReadTimeout -1s: negative"},
		{Config{WriteTimeout: -time.Second}, "Config.WriteTimeout -1s: negative"},
		{Config{ShutdownTimeout: -time.Second}, "Config.ShutdownTimeout -1s: negative"},
		{Config{RequestTimeout: -time.Second}, "Config.RequestTimeout -1s: negative"},
		{Config{GOGC: -7}, "Config.GOGC -7: negative"},
		{Config{MaxMemory: -1 << 20}, "Config.MaxMemory -1048576: negative"},
		{Config{MaxMemory: 64 << 20}, "Config.MaxMemory 67108864: less than"},
		{Config{MaxBodyBytes: 512 << 20}, "cannot take in one body"},
		{Config{MaxBodyBytes: 2 << 30}, "more than the 1024MiB"},
		{Config{RequestTimeout: 10 * time.Second}, "Config.RequestTimeout 10s: not shorter than Config.WriteTimeout 10s"},
		{Config{WriteTimeout: time.Second, RequestTimeout: 2 * time.Second}, "Config.RequestTimeout 2s: not shorter than Config.WriteTimeout 1s"},
		{Config{WriteTimeout: time.Nanosecond}, "Config.WriteTimeout 1ns: shorter than the 100ms"},
		{Config{IdleTimeout: time.Millisecond}, "Config.IdleTimeout 1ms: shorter than the 100ms"},
		{Config{MaxMemory: 1 << 62}, "Config.MaxMemory 4611686018427387904: too large; want at most 1048576MiB"},
		{Config{MaxInflight: 1 << 20}, "Config.MaxInflight 1048576: too large"},
		{Config{MaxConns: -1}, "Config.MaxConns -1: negative"},
		{Config{MaxConns: 1 << 21}, "Config.MaxConns 2097152: too large"},
		{Config{MaxConns: 10000}, "Config.MaxConns 10000: more than half of what Config.MaxMemory 536870912 leaves to requests"},
	} {
		c.cfg.PolicyPath = writeTestPolicy(t)
		_, err := New(c.cfg)
		var se *SettingError
		if !errors.As(err, &se) || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "--") {
			t.Errorf("%+v: %v, want an error saying %q", c.cfg, err, c.says)
		}
	}
	for _, cfg := range []Config{{}, {MaxInflight: 1, MaxBodyBytes: 1, MaxMemory: 128 << 20, GOGC: 400, WriteTimeout: time.Second, RequestTimeout: time.Second / 2}} {
		if err := cfg.Validate(); err != nil {
			t.Errorf("%+v: %v", cfg, err)
		}
	}
}
