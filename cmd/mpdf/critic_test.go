package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCriticFlag: import --critic gives agent 0's round-0 turn (which
// states "q + 10 = …", correctly) the critic's confidence 1 and leaves the
// turns that state no equation missing; study --critic needs a replay.
func TestCriticFlag(t *testing.T) {
	dir := t.TempDir()
	tr := writeTranscript(t, dir)
	out := filepath.Join(dir, "episodes.jsonl")
	mustRun(t, "import", tr, "--out", out, "--critic")
	recs, _ := readAll(t, out)
	if len(recs) != 3 {
		t.Fatalf("%d episodes, want 3", len(recs))
	}
	for _, rec := range recs {
		ep := rec.Episode
		if c := ep.Rounds[0].Turns[0].Confidence; c == nil || *c != 1 {
			t.Errorf("%s: agent 0's round-0 confidence %v, want the critic's 1", ep.ID, c)
		}
		if c := ep.Rounds[1].Turns[1].Confidence; c != nil {
			t.Errorf("%s: agent 1's round-1 confidence %v, want missing (no equation)", ep.ID, *c)
		}
	}
	if _, err := runCmd(t, "study", "--env", "sim", "--critic", "-q", "--out", filepath.Join(dir, "s")); err == nil || !strings.Contains(err.Error(), "--critic") {
		t.Errorf("study --critic on the simulator: err %v, want one naming --critic", err)
	}
}
