package corpus

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/internal/testenv"
)

// TestCorpusShared checks that the pooled row counts a question shared by
// two files once and flags it.
func TestCorpusShared(t *testing.T) {
	dir := t.TempDir()
	doc := `{"What is 1+1?": [[[{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{2}"}],[{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{3}"},{"role":"assistant","content":"\\boxed{2}"}]], "2"]}`
	var paths []string
	for _, n := range []string{"gsm_A_agents2_rounds2.json", "gsm_B_agents2_rounds2.json"} {
		p := filepath.Join(dir, n)
		os.WriteFile(p, []byte(doc), 0o644)
		paths = append(paths, p)
	}
	c, err := Read(paths, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f := c.Files[0]
	if f.Questions != 1 || f.Shared != 1 || f.Revisions != 1 || f.Fixes != 1 || f.Breaks != 0 || f.Unanimous != 0 || f.FinalMajority != 1 {
		t.Errorf("file row %+v", f)
	}
	if p := c.Pooled; p.Questions != 1 || p.Shared != 1 || len(p.Models) != 2 {
		t.Errorf("pooled row %+v", p)
	}
}

// TestRealBaselines scores every shared transcript: persist (round-0
// majority) against debate (the recorded final round), per file and per
// model.
func TestRealBaselines(t *testing.T) {
	var files []*transcript.File
	for _, p := range testenv.Debates(t, "slm-debate/*/*.json") {
		f, err := transcript.ReadFile(p, transcript.Options{})
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	rows := Baselines(files)
	if len(rows) != len(files) {
		t.Fatalf("%d rows for %d files", len(rows), len(files))
	}
	var sb strings.Builder
	if err := WriteBaselines(&sb, rows); err != nil {
		t.Fatal(err)
	}
	sb.WriteString("\n")
	if err := WriteBaselines(&sb, ByModel(rows)); err != nil {
		t.Fatal(err)
	}
	t.Logf("persist (round-0 majority) vs debate (recorded final round):\n%s", sb.String())
}
