package run

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/trainer"
)

// The resolved config is printed unless quiet (-q): run.json and each
// checkpoint keep it either way.
func TestPrinterQuietDropsTheConfig(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		var b strings.Builder
		p := NewPrinter(&b, quiet)
		p.Hooks(&b).Start(Start{Config: trainer.DefaultConfig()})
		if got := strings.Contains(b.String(), "resolved config"); got == quiet {
			t.Errorf("quiet %v: printed %q", quiet, b.String())
		}
	}
}
