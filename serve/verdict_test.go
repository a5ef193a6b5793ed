package serve

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// GET /v1/policy carries the verdict of the run that wrote the checkpoint
// (its eval.json) when that judged this file at this step; none for
// another step; a planted symlink is not followed, and said.
func TestPolicyInfoVerdict(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "best.mpdf")
	writeCheckpoint(t, path, 1, 775)
	eval := `{"checkpoint": "best.mpdf", "step": 775, "verdict": {"policy": "mpdf/greedy", "play": "greedy", "lambda": 0,
		"use": "majority", "sentence": "use majority: no row is shown more accurate (…)."}}`
	if err := os.WriteFile(filepath.Join(dir, "eval.json"), []byte(eval), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := LoadPolicy(path)
	if err != nil {
		t.Fatal(err)
	}
	if v := p.Info().Verdict; v == nil || v.Use != "majority" || v.Play != "greedy" || !strings.HasPrefix(v.Sentence, "use majority: ") {
		t.Fatalf("verdict %+v", v)
	}
	writeCheckpoint(t, path, 1, 776)
	if p, err = LoadPolicy(path); err != nil || p.Info().Verdict != nil {
		t.Fatalf("another step: verdict %+v, err %v; want none", p.Info().Verdict, err)
	}
	other := filepath.Join(t.TempDir(), "eval.json")
	if err := os.WriteFile(other, []byte(eval), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "eval.json"))
	if err := os.Symlink(other, filepath.Join(dir, "eval.json")); err != nil {
		t.Skip(err)
	}
	writeCheckpoint(t, path, 1, 775)
	if p, err = LoadPolicy(path); err != nil || p.Info().Verdict != nil || len(p.Info().Warnings) != 1 ||
		!strings.Contains(p.Info().Warnings[0], "not a regular file") {
		t.Fatalf("symlinked eval.json: verdict %+v, warnings %q, err %v", p.Info().Verdict, p.Info().Warnings, err)
	}
}
