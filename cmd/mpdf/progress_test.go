package main

import (
	"bytes"
	"runtime"
	"strings"
	"testing"
)

// Off a terminal (CI logs, files) progress is plain lines, never the
// carriage-return redraws of a bar.
func TestBarPlainOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := newBarTo(&buf, false, 10, "rl")
	for i := range 10 {
		b.Describe("rl step")
		if err := b.Set(i + 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Finish(); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	if strings.ContainsAny(out, "\r\x1b") {
		t.Errorf("plain progress holds redraw or escape characters: %q", out)
	}
	if !strings.HasPrefix(out, "rl step: 10/10 (100%)") || !strings.HasSuffix(out, " done\n") || strings.Count(out, "\n") != 1 {
		t.Errorf("plain progress of a short job: %q, want its one final line", out)
	}
	b.Finish()
	if strings.Count(buf.String(), "\n") != 1 {
		t.Error("a second Finish printed again")
	}
}

func TestVersion(t *testing.T) {
	out, err := runCmd(t, "--version")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "mpdf ") || !strings.Contains(out, runtime.Version()) {
		t.Errorf("--version: %q", out)
	}
}
