package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

// mpdf study compare reads a study's results.json, reproduces its report's
// pooled accuracy, pairs it with a study of the same tasks and seeds and
// refuses one of other seeds.
func TestStudyCompareCommand(t *testing.T) {
	dir := t.TempDir()
	study := func(out string, seed string) {
		mustRun(t, "study", "--sim-tasks", "30", "--folds", "2", "--seeds", "1", "--seed", seed, "--lambdas", "0",
			"--iterations", "1", "--tasks-per-iter", "8", "--episodes-per-task", "2", "--sft-epochs", "0",
			"--baselines", "persist,debate,gate", "--resamples", "200", "-q", "--out", filepath.Join(dir, out))
	}
	study("a", "1")
	study("b", "1")
	study("c", "2")
	a, b, c := filepath.Join(dir, "a", "results.json"), filepath.Join(dir, "b", "results.json"), filepath.Join(dir, "c", "results.json")
	out := mustRun(t, "study", "compare", a, "--pair", b, "--against", "gate", "--ceiling", "model", "--resamples", "200")
	for _, want := range []string{"| mpdf λ=0 − gate |", "| mpdf λ=0 − mpdf λ=0 (B) |", "+0.0 [+0.0, +0.0]", "best fixed protocol per model (hindsight)"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if again := mustRun(t, "study", "compare", a, "--pair", b, "--against", "gate", "--ceiling", "model", "--resamples", "200"); again != out {
		t.Error("same files and flags, other output")
	}
	js := mustRun(t, "study", "compare", a, "--json", "--by", "kind")
	var v struct {
		Scopes []struct{ Name string }
	}
	if err := json.Unmarshal([]byte(js), &v); err != nil || len(v.Scopes) < 2 || v.Scopes[0].Name != "all" {
		t.Errorf("--json --by kind: %v, scopes %+v", err, v.Scopes)
	}
	if _, err := runCmd(t, "study", "compare", a, "--pair", c); err == nil || !strings.Contains(err.Error(), "do not pair") {
		t.Errorf("--pair with a study of another seed: %v, want refused", err)
	}
	if _, err := runCmd(t, "study", "compare", a, "--by", "fold"); err == nil {
		t.Error("--by fold: no error")
	}
	if _, err := runCmd(t, "study", "compare", filepath.Join(dir, "a", "report.md")); err == nil || !strings.Contains(err.Error(), "report.md") {
		t.Errorf("report.md as results: %v, want an error naming it", err)
	}
}
