package replay

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data/transcript"
)

// Grouper names rows by file or by model; Counts says tasks and distinct
// questions.
func TestGrouperAndCounts(t *testing.T) {
	src := filepath.Join("..", "..", "data", "transcript", "testdata")
	paths, err := filepath.Glob(filepath.Join(src, "gsm_*.json"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("%d transcripts, %v", len(paths), err)
	}
	e, _, err := Load(paths, transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for by, want := range map[string]string{"file": "gsm_TinyModel_agents2_rounds3.json", "model": "TinyModel"} {
		g, err := e.Grouper(by)
		if err != nil || g(0) != want {
			t.Errorf("Grouper(%q): %v", by, err)
		}
	}
	if g, err := e.Grouper("none"); g != nil || err != nil {
		t.Errorf("Grouper(none) gave a function or %v", err)
	}
	if _, err := e.Grouper("task"); err == nil || !strings.Contains(err.Error(), "want none, file or model") {
		t.Errorf("Grouper(task): %v", err)
	}
	if got, want := Counts(e), "2 tasks, 2 distinct questions"; got != want {
		t.Errorf("Counts: %q, want %q", got, want)
	}
}
