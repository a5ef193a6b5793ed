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
