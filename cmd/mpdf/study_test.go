package main

import (
	"bytes"
	"fmt"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/study"
)

// mpdf study on a small simulator writes its files, prints the verdict
// lines report.md opens with (not the report), and gives the same bytes
// when run again.
func TestStudyCommand(t *testing.T) {
	dir := t.TempDir()
	args := []string{"study", "--sim-tasks", "30", "--folds", "2", "--seeds", "1", "--lambdas", "0,1",
		"--iterations", "1", "--tasks-per-iter", "8", "--episodes-per-task", "2", "--sft-epochs", "0",
		"--resamples", "200", "-q"}
	out := mustRun(t, append(args, "--out", filepath.Join(dir, "a"))...)
	again := mustRun(t, append(args, "--out", filepath.Join(dir, "b"))...)
	if out != again {
		t.Error("same flags, other report")
	}
	for _, f := range []string{"results.json", "report.md"} {
		a, err := os.ReadFile(filepath.Join(dir, "a", f))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, "b", f))
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs between two runs of the same flags", f)
		}
		if f == "report.md" && !strings.HasPrefix(string(a), "# mpdf study\n\n## Verdict\n\n- "+strings.ReplaceAll(strings.TrimSuffix(out, "\n"), "\n", "\n- ")+"\n\n") {
			t.Errorf("report.md does not open with the printed verdict lines:\n%s\nreport.md:\n%.600s", out, a)
		}
	}
	if lines := strings.Split(strings.TrimSpace(out), "\n"); len(lines) != 3 || !strings.HasPrefix(lines[0], "mpdf λ=0, played sampled — verdict (λ 0, accuracy alone): use ") ||
		!strings.HasPrefix(lines[1], "mpdf λ=1, played sampled — verdict (λ 1, 100 points per 1000 tokens): use ") || !strings.HasPrefix(lines[2], "all λ pooled, played sampled — verdict (λ 0, ") {
		t.Errorf("printed:\n%s\nwant a verdict line per λ, then all λ pooled", out)
	}
	report := studyReport(t, filepath.Join(dir, "a"))
	for _, want := range []string{"mpdf λ=0", "mpdf λ=1", "oracle (hindsight)", "| debate |", "| threshold |", "learned − other"} {
		if !strings.Contains(report, want) {
			t.Errorf("report lacks %q:\n%s", want, report)
		}
	}
	f, err := os.Open(filepath.Join(dir, "a", "pareto.png"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("pareto.png: %v", err)
	}
	if _, err := runCmd(t, "study", "--sim-tasks", "30", "--fold-by", "model", "-q", "--out", dir); err == nil ||
		!strings.Contains(err.Error(), "model") {
		t.Errorf("--fold-by model on the one-model simulator: %v, want an error naming the models", err)
	}
	if _, err := runCmd(t, "study", "--sim-tasks", "30", "--fold-by", "task", "-q", "--out", dir); err == nil {
		t.Error("--fold-by task: no error")
	}
}

// A hindsight or pivotal teacher labels transcripts from their answers, so
// on a replay the study keeps its supervised stage when --sft-epochs is not
// given (it was 0, the threshold teacher's replay default: no stage at all).
func TestStudySFTEpochsDefault(t *testing.T) {
	glob := filepath.Join(testenv.Shared(t, "data", "debates", "slm-debate", "gsm"), "*Qwen3-0.6B*agents3*.json")
	dir := t.TempDir()
	mustRun(t, "study", "--env", "replay:"+glob, "--sft-labels", "hindsight", "--folds", "2", "--seeds", "1",
		"--lambdas", "0", "--iterations", "1", "--tasks-per-iter", "4", "--episodes-per-task", "1",
		"--baselines", "persist", "--resamples", "50", "-q", "--out", dir)
	out := studyReport(t, dir)
	if want := fmt.Sprintf("%d SFT epochs (labels hindsight)", study.DefaultSFTEpochs); !strings.Contains(out, want) {
		t.Errorf("report lacks %q:\n%s", want, out)
	}
}

// On a replay the study's learned policies train the transcript recipe
// (teacher.DefaultRecipe) when no flag says otherwise.
func TestStudyReplayRecipeDefault(t *testing.T) {
	glob := filepath.Join(testenv.Shared(t, "data", "debates", "slm-debate", "gsm"), "*Qwen3-0.6B*agents3*.json")
	dir := t.TempDir()
	out := mustRun(t, "study", "--env", "replay:"+glob, "--folds", "2", "--seeds", "1",
		"--lambdas", "0", "--iterations", "1", "--tasks-per-iter", "4", "--episodes-per-task", "1",
		"--baselines", "majority", "--resamples", "50", "-q", "--out", dir)
	if !strings.HasPrefix(out, "mpdf λ=0, played greedy — verdict (λ 0, accuracy alone): use ") {
		t.Errorf("printed %q, want the verdict on the greedy policy", out)
	}
	out = studyReport(t, dir)
	for _, want := range []string{"20 SFT epochs (labels pivotal:gate)", "learned policies greedy"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	js := mustRun(t, "study", "--env", "replay:"+glob, "--folds", "2", "--seeds", "1",
		"--lambdas", "0", "--iterations", "1", "--tasks-per-iter", "4", "--episodes-per-task", "1",
		"--baselines", "majority", "--resamples", "50", "-q", "--out", t.TempDir(), "--json")
	if !strings.Contains(js, `"features": "mpdf-features/v2"`) {
		t.Errorf("the summary does not record the v2 layout:\n%s", js)
	}
}

// studyReport is the report.md a study wrote into dir.
func studyReport(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// study's --sft-epochs and --sft-labels show one default each (not given:
// the recipe's, which the usage says), and a negative --sft-epochs is
// refused, as every count's is (issue 33).
func TestStudySFTFlagsOneDefault(t *testing.T) {
	cmd, _, err := newRoot().Find([]string{"study"})
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"sft-epochs", "sft-labels"} {
		f := cmd.Flags().Lookup(name)
		if f.DefValue != "" && f.DefValue != "0" || !strings.Contains(f.Usage, "not given: ") {
			t.Errorf("--%s: default %q, usage %q: want the recipe's, said once", name, f.DefValue, f.Usage)
		}
	}
	if _, err := runCmd(t, "study", "--sft-epochs", "-1", "-q", "--out", t.TempDir()); err == nil || !strings.Contains(err.Error(), "--sft-epochs -1: want ≥ 0") {
		t.Errorf("--sft-epochs -1: %v", err)
	}
}

// A flag the ablation sweeps is refused beside --ablate, not silently
// overridden by each setting (issue 33).
func TestStudyAblateRefusesTheSweptFlag(t *testing.T) {
	for _, c := range [][]string{{"gamma", "--gamma", "0.5"}, {"loss", "--loss", "rank-match"}, {"team-size", "--agents", "5"}} {
		_, err := runCmd(t, "study", "--ablate", c[0], c[1], c[2], "-q", "--out", t.TempDir())
		if err == nil || !strings.Contains(err.Error(), "--ablate "+c[0]+" sweeps "+c[1]+" itself") {
			t.Errorf("--ablate %s %s %s: %v", c[0], c[1], c[2], err)
		}
	}
}
