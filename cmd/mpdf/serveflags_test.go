package main

import (
	"strings"
	"testing"
)

// TestServeRejectsBadFlags: a negative limit, timeout or GOGC is refused
// with a message naming the flag, not silently replaced by the default.
func TestServeRejectsBadFlags(t *testing.T) {
	for _, c := range []struct{ flag, value, says string }{
		{"--max-inflight", "-5", "--max-inflight -5: negative"},
		{"--max-body-kib", "-1", "--max-body-kib -1: negative"},
		{"--read-timeout", "-1s", "--read-timeout -1s: negative"},
		{"--gogc", "-7", "--gogc -7: negative"},
		{"--max-memory-mib", "-1", "--max-memory-mib -1: negative"},
		{"--max-conns", "-3", "--max-conns -3: negative"},
		{"--request-timeout", "20s", "--request-timeout 20s: not shorter than --write-timeout 10s"},
		{"--max-body-kib", "2097152", "serve: --max-body-kib 2097152: more than the 1024MiB a request may have"},
		{"--max-body-kib", "524288", "serve: --max-memory-mib 512 cannot take in one body of the largest size (--max-body-kib 524288 needs"},
	} {
		_, err := runCmd(t, "serve", "--policy", "missing.mpdf", c.flag, c.value)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("serve %s %s: %v, want an error saying %q", c.flag, c.value, err, c.says)
		}
	}
}

// TestServeFlagsAtTheirLimits: values at the edges of their range are
// refused with a message that says why, not wrapped into a negative
// (9999999999999 MiB) or accepted to start a server that resets every
// connection (1ns).
func TestServeFlagsAtTheirLimits(t *testing.T) {
	for _, c := range []struct{ flag, value, says string }{
		{"--max-memory-mib", "9999999999999", "9999999999999 is too large: want at most 8796093022207"},
		{"--max-body-kib", "9999999999999999", "9999999999999999 is too large: want at most 9007199254740991"},
		{"--max-memory-mib", "8796093022207", "--max-memory-mib 8796093022207: too large; want at most 1048576MiB"},
		{"--max-inflight", "9999999999999", "--max-inflight 9999999999999: too large; want at most 65536"},
		{"--max-conns", "9999999999", "--max-conns 9999999999: too large; want at most 1048576"},
		{"--write-timeout", "1ns", "--write-timeout 1ns: shorter than the 100ms a server needs to answer at all"},
		{"--read-timeout", "99ms", "--read-timeout 99ms: shorter than the 100ms"},
		{"--request-timeout", "1us", "--request-timeout 1µs: shorter than the 100ms"},
	} {
		_, err := runCmd(t, "serve", "--policy", "missing.mpdf", c.flag, c.value)
		if err == nil || !strings.Contains(err.Error(), c.says) || strings.Contains(err.Error(), "negative") {
			t.Errorf("serve %s %s: %v, want an error saying %q", c.flag, c.value, err, c.says)
		}
	}
}
