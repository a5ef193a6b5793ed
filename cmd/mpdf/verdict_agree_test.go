package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/trainer/run"
)

// verdictLine is the "verdict (…" line of a command's output.
func verdictLine(t *testing.T, out string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "verdict (") {
			return l
		}
	}
	t.Fatalf("no verdict line in:\n%s", out)
	return ""
}

// On the same shared transcripts, train's verdict (its held-out side,
// greedy), eval's of the checkpoint it wrote (the same split by default,
// greedy by default on a replay) and eval.json's are one verdict, and each
// says how the policy played; study's lines judge the same way (greedy)
// and are all it prints.
func TestTrainEvalStudyAgree(t *testing.T) {
	paths := testenv.Debates(t, "*/gsm/*.json")
	if len(paths) == 0 {
		t.Skip("no shared GSM transcripts")
	}
	spec := "replay:" + filepath.Join(testenv.Shared(t, "data", "debates"), "*", "gsm", "*.json")
	out := filepath.Join(t.TempDir(), "run")
	trained := train(t, out, "--env", spec, "--iterations", "3", "--eval-tasks", "1000")
	tv := verdictLine(t, trained)
	if !strings.Contains(trained, "(played greedy; Δ paired") {
		t.Errorf("train does not say the policy played greedy:\n%s", trained)
	}
	ev := mustRun(t, "eval", "--env", spec, "--policy", filepath.Join(out, "best.mpdf"), "-q")
	if v := verdictLine(t, ev); v != tv {
		t.Errorf("train and eval disagree:\ntrain: %s\neval:  %s", tv, v)
	}
	if !strings.Contains(ev, "(played greedy; Δ paired") {
		t.Errorf("eval does not say the policy played greedy:\n%s", ev)
	}
	b, err := os.ReadFile(filepath.Join(out, run.EvalName))
	if err != nil {
		t.Fatal(err)
	}
	var ef run.EvalFile
	if err := json.Unmarshal(b, &ef); err != nil || ef.Verdict == nil {
		t.Fatalf("eval.json: %v", err)
	}
	if ef.Verdict.Line() != tv || ef.Verdict.Play != "greedy" {
		t.Errorf("eval.json's verdict %q (play %q), train printed %q", ef.Verdict.Line(), ef.Verdict.Play, tv)
	}
	// Sampling, when asked, is said.
	if s := mustRun(t, "eval", "--env", spec, "--policy", filepath.Join(out, "best.mpdf"), "-q", "--greedy=false"); !strings.Contains(s, "(played sampled; Δ paired") {
		t.Errorf("eval --greedy=false does not say it sampled:\n%s", s)
	}
	// A clean run leaves no lock file behind.
	if _, err := os.Stat(filepath.Join(out, run.LockName)); !os.IsNotExist(err) {
		t.Errorf("train left %s: %v", run.LockName, err)
	}
	sdir := filepath.Join(t.TempDir(), "study")
	defer func() {
		if m, _ := filepath.Glob(filepath.Join(sdir, "*.lock")); len(m) > 0 {
			t.Errorf("study left %v", m)
		}
	}()
	st := mustRun(t, "study", "--env", spec, "--out", sdir, "--folds", "2", "--seeds", "1",
		"--lambdas", "0", "--iterations", "1", "--sft-epochs", "1", "-q")
	lines := strings.Split(strings.TrimSpace(st), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "mpdf λ=0, played greedy — verdict (λ 0, accuracy alone): use ") {
		t.Errorf("study printed:\n%s\nwant its one verdict line", st)
	}
}
