package replay

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Open expands the spec's globs, reports each file, applies the spec's
// and the extra options; Grouper names rows by file or by model.
func TestOpenAndGrouper(t *testing.T) {
	src := filepath.Join("..", "..", "data", "transcript", "testdata")
	sp, err := ParseSpec("replay:" + filepath.Join(src, "gsm_*.json") + ",critic=on")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	e, err := Open(sp, &log, WithText(true))
	if err != nil {
		t.Fatal(err)
	}
	if e.NumTasks() != 2 || !e.critic || !e.text || !strings.Contains(log.String(), "gsm_TinyModel_agents2_rounds3.json") {
		t.Errorf("opened %d tasks, critic %v, text %v; log:\n%s", e.NumTasks(), e.critic, e.text, log.String())
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
	if _, err := Open(Spec{Globs: []string{filepath.Join(src, "nothing_*.json")}}, nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a glob matching nothing: %v", err)
	}

	// One round of answers only: nothing to decide.
	flat := filepath.Join(t.TempDir(), "gsm_1_1.json")
	doc := `{"What is 1+1?": [[[{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{2}"}],` +
		`[{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{2}"}]], "2"]}`
	if err := os.WriteFile(flat, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Spec{Globs: []string{flat}}, nil); !errors.Is(err, ErrNoRounds) {
		t.Errorf("a transcript without deliberation: %v, want ErrNoRounds", err)
	}
}
