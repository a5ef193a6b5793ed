package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// TestDataCorpus runs `mpdf data corpus` on the small transcript of
// import_test: agent 0 right from round 0, agent 1 fixed by the debate on
// two questions (its third round-0 answer is unreadable).
func TestDataCorpus(t *testing.T) {
	dir := t.TempDir()
	tr := writeTranscript(t, dir)
	var c struct {
		Files []struct {
			Questions  int       `json:"questions"`
			Unreadable []float64 `json:"unreadable_share"`
			Fixes      int       `json:"fixes"`
			Breaks     int       `json:"breaks"`
		} `json:"files"`
		Pooled struct {
			Questions int `json:"questions"`
		} `json:"pooled"`
	}
	out := mustRun(t, "data", "corpus", tr, "--json")
	if err := json.Unmarshal([]byte(out), &c); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if len(c.Files) != 1 || c.Files[0].Questions != 3 || c.Pooled.Questions != 3 || c.Files[0].Fixes != 3 || c.Files[0].Breaks != 0 {
		t.Errorf("corpus %+v", c)
	}
	if u := c.Files[0].Unreadable; len(u) != 2 || u[0] != 1.0/6 || u[1] != 0 {
		t.Errorf("unreadable shares %v, want [1/6 0]", u)
	}
	table := mustRun(t, "data", "corpus", tr)
	if !strings.Contains(table, "pooled: 1 files") || !strings.Contains(table, filepath.Base(tr)) {
		t.Errorf("table:\n%s", table)
	}
	if _, err := runCmd(t, "data", "corpus", tr, "--layout", "agora"); err == nil || !strings.Contains(err.Error(), "want a JSON array") {
		t.Errorf("forced agora layout on a debate file: %v", err)
	}
	if _, err := runCmd(t, "import", tr, "--layout", "nope", "--out", filepath.Join(dir, "x.jsonl")); err == nil || !strings.Contains(err.Error(), "--layout") {
		t.Errorf("bad --layout: %v", err)
	}
}
