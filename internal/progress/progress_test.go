package progress

import (
	"bytes"
	"strings"
	"testing"
)

// Off a terminal (CI logs, files) progress is plain lines, never the
// carriage-return redraws of a bar.
func TestBarPlainOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	b := NewTo(&buf, false, 10, "rl")
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
