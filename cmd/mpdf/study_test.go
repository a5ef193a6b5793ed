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

// mpdf study on a small simulator writes its three files, prints the
// report it wrote, and gives the same bytes when run again.
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
		if f == "report.md" && string(a) != out {
			t.Error("printed report is not report.md")
		}
	}
	for _, want := range []string{"mpdf λ=0", "mpdf λ=1", "oracle (hindsight)", "| debate |", "learned − other"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
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
	out := mustRun(t, "study", "--env", "replay:"+glob, "--sft-labels", "hindsight", "--folds", "2", "--seeds", "1",
		"--lambdas", "0", "--iterations", "1", "--tasks-per-iter", "4", "--episodes-per-task", "1",
		"--baselines", "persist", "--resamples", "50", "-q", "--out", t.TempDir())
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
