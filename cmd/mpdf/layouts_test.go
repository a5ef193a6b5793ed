package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/internal/cliflag"
)

// TestHelpNamesEveryLayout: the --layout flag's meaning and the help of
// the commands that read transcripts (import's usage, the replay spec's
// layout=L in eval's) list the registered layouts
// (transcript.LayoutNames), so that a layout added there is not left out
// of the help.
func TestHelpNamesEveryLayout(t *testing.T) {
	names := transcript.LayoutNames()
	i := slices.IndexFunc(cliflag.Table, func(s cliflag.Shared) bool { return s.Name == "layout" })
	if i < 0 {
		t.Fatal("no --layout in cliflag.Table")
	}
	sentence := strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
	if got, want := cliflag.Table[i].Meaning, "file layout of transcripts: "+sentence; got != want {
		t.Errorf("--layout means %q, want %q", got, want)
	}
	b, err := helpFiles.ReadFile("help/eval.txt")
	if err != nil {
		t.Fatal(err)
	}
	if want := "layout=L (" + strings.Join(names, ", "); !strings.Contains(strings.Join(strings.Fields(string(b)), " "), want) {
		t.Errorf("eval's help: the replay spec's layout=L does not say %s", want)
	}
	out := mustRun(t, "import", "-h")
	if want := "[--layout " + strings.Join(names, "|") + "]"; !strings.Contains(out, want) {
		t.Errorf("mpdf import -h does not say %s", want)
	}
}
