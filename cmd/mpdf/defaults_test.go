package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/trainer/teacher"
)

// execute runs the command line args and returns stdout, stderr and the error.
func execute(args ...string) (stdout, stderr string, err error) {
	root := newRoot()
	var o, e bytes.Buffer
	root.SetOut(&o)
	root.SetErr(&e)
	root.SetArgs(args)
	err = root.Execute()
	return o.String(), e.String(), err
}

// A replay run with no training flag trains the transcript recipe, says
// so, ends with a verdict (printed and in eval.json), and its checkpoint,
// given to eval without --env, is evaluated on the same replay.
func TestTrainReplayDefaultsAndVerdict(t *testing.T) {
	dir := t.TempDir()
	writeTranscript(t, dir)
	out := filepath.Join(dir, "run")
	spec := "replay:" + filepath.Join(dir, "gsm_*.json")
	stdout, stderr, err := execute("train", "-q", "--out", out, "--env", spec, "--iterations", "1", "--hidden", "8",
		"--tasks-per-iter", "2", "--episodes-per-task", "2", "--held-out", "0.4")
	if err != nil {
		t.Fatalf("train: %v\n%s", err, stderr)
	}
	rep, _ := trainer.DefaultRecipe(trainer.RecipeReplay)
	if !strings.Contains(stderr, "defaults for transcripts") || !strings.Contains(stderr, "--sft-labels pivotal:gate --sft-epochs 20 --features mpdf-features/v2, judged greedy") {
		t.Errorf("stderr %q: want the recipe named", stderr)
	}
	c, err := checkpoints.Load(filepath.Join(out, "best.mpdf"), checkpoints.WithFeatureVersion(rep.Train.Features))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Features string `json:"features"`
		SFT      struct {
			Labels string `json:"labels"`
			Epochs int    `json:"epochs"`
		} `json:"sft"`
	}
	if err := json.Unmarshal(c.Header.Train, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.SFT.Labels != trainer.ReplayLabels || cfg.SFT.Epochs != trainer.ReplaySFTEpochs || cfg.Features != rep.Train.Features {
		t.Errorf("stored config %+v: want the replay recipe", cfg)
	}
	if !strings.Contains(stdout, "mpdf/greedy against the fixed protocols") || !strings.Contains(stdout, "verdict (λ 0, accuracy alone): use ") {
		t.Errorf("stdout lacks the verdict on the greedy policy:\n%s", stdout)
	}
	b, err := os.ReadFile(filepath.Join(out, run.EvalName))
	if err != nil {
		t.Fatal(err)
	}
	var ev run.EvalFile
	if err := json.Unmarshal(b, &ev); err != nil {
		t.Fatal(err)
	}
	if ev.Verdict == nil || ev.Verdict.Policy != "mpdf/greedy" || ev.Verdict.Sentence == "" || len(ev.Verdict.Rows) != 5 ||
		len(ev.Results) == 0 || len(ev.Notes) == 0 || ev.Env != spec {
		t.Errorf("eval.json %s: want results, a verdict on mpdf/greedy with 5 rows, notes and the env", b)
	}
	// The verdict is about the file a user ships: best.mpdf, at its step.
	if ev.Checkpoint != "best.mpdf" || ev.Step != c.Header.Step || !strings.Contains(stdout, fmt.Sprintf("best.mpdf (step %d)", c.Header.Step)) {
		t.Errorf("eval.json played %q at step %d, best.mpdf is step %d; stdout:\n%s", ev.Checkpoint, ev.Step, c.Header.Step, stdout)
	}

	// eval without --env plays the replay the checkpoint trained on.
	stdout, stderr, err = execute("eval", "-q", "--greedy", "--policy", filepath.Join(out, "best.mpdf"))
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "evaluating on that replay") || !strings.Contains(stdout, "env replay:") ||
		!strings.Contains(stdout, "verdict (λ 0") {
		t.Errorf("eval without --env:\nstdout %s\nstderr %s\nwant the run's replay and a verdict", stdout, stderr)
	}
	// Flags given win over the recipe, and the simulator keeps its defaults.
	_, _, err = execute("train", "-q", "--out", filepath.Join(dir, "run2"), "--env", spec, "--iterations", "1", "--hidden", "8",
		"--tasks-per-iter", "2", "--episodes-per-task", "2", "--sft-labels", "gate", "--eval-tasks", "0")
	if stored := storedConfig(t, filepath.Join(dir, "run2")); err != nil || !strings.Contains(stored, `"labels":"gate"`) || !strings.Contains(stored, `"features":"mpdf-features/v2"`) {
		t.Errorf("--sft-labels gate on a replay: %v\n%s", err, stored)
	}
	stdout, stderr, err = execute("train", "-q", "--out", filepath.Join(dir, "sim"), "--iterations", "1", "--hidden", "8",
		"--tasks-per-iter", "2", "--episodes-per-task", "2", "--sft-epochs", "1", "--eval-tasks", "20")
	if err != nil || !strings.Contains(storedConfig(t, filepath.Join(dir, "sim")), `"labels":"threshold:0.95:0.15"`) || strings.Contains(stderr, "defaults for transcripts") ||
		!strings.Contains(stdout, "mpdf against the fixed protocols") {
		t.Errorf("sim: %v\nstdout %s\nstderr %s\nwant the simulator's defaults and a verdict on the sampled policy", err, stdout, stderr)
	}
}

// Imported transcripts trained on offline teach only "refine": train
// refuses them, pointing to the replay, unless --allow-single-behaviour.
func TestTrainRefusesSingleBehaviour(t *testing.T) {
	dir := t.TempDir()
	tr := writeTranscript(t, dir)
	eps := filepath.Join(dir, "episodes.jsonl")
	mustRun(t, "import", tr, "--out", eps)
	_, _, err := trainErr(t, filepath.Join(dir, "run"), eps)
	if err == nil || !strings.Contains(err.Error(), "--env 'replay:") || !strings.Contains(err.Error(), "--allow-single-behaviour") ||
		!strings.Contains(err.Error(), "imported") {
		t.Fatalf("offline on imported episodes: %v, want a refusal pointing to --env replay: and the override", err)
	}
	if _, stderr, err := trainErr(t, filepath.Join(dir, "run"), eps, "--allow-single-behaviour"); err != nil {
		t.Fatalf("--allow-single-behaviour: %v\n%s", err, stderr)
	}
}

// A teacher with nothing to label (the pivotal one, when every agent is
// right from round 0: no decision changes the team's result) skips the
// supervised stage and says so, on stderr, in the summary and in
// eval.json, instead of failing.
func TestTrainTeacherFallbackSaysSo(t *testing.T) {
	dir := t.TempDir()
	doc := map[string]any{}
	for q := range 4 {
		text := fmt.Sprintf("Question %d: what is %d + 1?", q, q)
		chat := []map[string]string{
			{"role": "user", "content": text},
			{"role": "assistant", "content": fmt.Sprintf("\\boxed{%d}", q+1)},
			{"role": "user", "content": "These are the solutions of the other agents."},
			{"role": "assistant", "content": fmt.Sprintf("\\boxed{%d}", q+1)},
		}
		doc[text] = []any{[]any{chat, chat, chat}, fmt.Sprintf("#### %d", q+1)}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "gsm_Same_agents3_rounds2.json"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "run")
	stdout, stderr, err := execute("train", "-q", "--out", out, "--env", "replay:"+filepath.Join(dir, "gsm_*.json"),
		"--sft-labels", teacher.PivotalName, "--iterations", "1", "--hidden", "8", "--tasks-per-iter", "2", "--episodes-per-task", "2", "--held-out", "0.25")
	if err != nil {
		t.Fatalf("train: %v\n%s", err, stderr)
	}
	const note = "teacher labelled no decision"
	if !strings.Contains(stdout, "supervised stage: skipped: the pivotal "+note) || !strings.Contains(stderr, note) {
		t.Errorf("stdout %s\nstderr %s\nwant the skipped supervised stage said on both", stdout, stderr)
	}
	b, err = os.ReadFile(filepath.Join(out, run.EvalName))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), note) {
		t.Errorf("eval.json lacks the note:\n%s", b)
	}
}

// storedConfig is the training config a run's best.mpdf stores (-q prints
// none).
func storedConfig(t *testing.T, dir string) string {
	t.Helper()
	c, err := checkpoints.Load(filepath.Join(dir, "best.mpdf"), checkpoints.WithFeatureVersion(""))
	if err != nil {
		t.Fatal(err)
	}
	return string(c.Header.Train)
}
