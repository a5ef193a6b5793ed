package open

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env/replay"
)

// Replay expands the spec's globs, reports each file, applies the spec's
// and then the extra options; globs that match nothing and transcripts
// without a deliberation round are refused.
func TestReplay(t *testing.T) {
	src := filepath.Join("..", "..", "data", "transcript", "testdata")
	sp, err := replay.ParseSpec("replay:" + filepath.Join(src, "gsm_*.json") + ",critic=on")
	if err != nil {
		t.Fatal(err)
	}
	var log strings.Builder
	e, err := Replay(sp, &log, replay.WithName("named"))
	if err != nil {
		t.Fatal(err)
	}
	if e.NumTasks() != 2 || !e.Critic() || e.Name() != "named" || !strings.Contains(log.String(), "gsm_TinyModel_agents2_rounds3.json") {
		t.Errorf("opened %d tasks, critic %v, name %q; log:\n%s", e.NumTasks(), e.Critic(), e.Name(), log.String())
	}
	if _, err := Replay(replay.Spec{Globs: []string{filepath.Join(src, "nothing_*.json")}}, nil); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("a glob matching nothing: %v", err)
	}

	// One round of answers only: nothing to decide.
	flat := filepath.Join(t.TempDir(), "gsm_1_1.json")
	doc := `{"What is 1+1?": [[[{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{2}"}],` +
		`[{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{2}"}]], "2"]}`
	if err := os.WriteFile(flat, []byte(doc), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Replay(replay.Spec{Globs: []string{flat}}, nil); !errors.Is(err, ErrNoRounds) {
		t.Errorf("a transcript without deliberation: %v, want ErrNoRounds", err)
	}
}
