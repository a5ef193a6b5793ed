package main

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

// tiny keeps a training run to a fraction of a second.
var tiny = []string{"-q", "--hidden", "8", "--sft-epochs", "1", "--tasks-per-iter", "6",
	"--episodes-per-task", "3", "--batch-size", "32", "--update-epochs", "2", "--eval-tasks", "0"}

func train(t *testing.T, out string, args ...string) string {
	t.Helper()
	stdout, stderr, err := trainErr(t, out, args...)
	if err != nil {
		t.Fatalf("train %v: %v\nstderr: %s", args, err, stderr)
	}
	return stdout
}

func latest(t *testing.T, dir string) []byte {
	t.Helper()
	p, err := checkpoints.Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestTrainSameSeedSameCheckpointBytes(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	train(t, a, "--iterations", "2", "--seed", "5")
	train(t, b, "--iterations", "2", "--seed", "5")
	if !bytes.Equal(latest(t, a), latest(t, b)) {
		t.Fatal("same seed and data gave different checkpoint bytes")
	}
	c := t.TempDir()
	train(t, c, "--iterations", "2", "--seed", "6")
	if bytes.Equal(latest(t, a), latest(t, c)) {
		t.Fatal("another seed gave the same checkpoint")
	}
	for _, f := range []string{"metrics.jsonl", "curve.png", "policy.safetensors", "best.mpdf"} {
		if _, err := os.Stat(filepath.Join(a, f)); err != nil {
			t.Errorf("run did not write %s: %v", f, err)
		}
	}
}

// N iterations, then a resume for M more, equals N+M iterations at once.
func TestTrainResumeContinuesExactly(t *testing.T) {
	straight, split := t.TempDir(), t.TempDir()
	train(t, straight, "--iterations", "3")
	train(t, split, "--iterations", "1")
	// Only what changes is given: the rest of the config comes from the checkpoint.
	root := newRoot()
	var stdout bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"train", "-q", "--out", split, "--resume", "--iterations", "3"})
	if err := root.Execute(); err != nil {
		t.Fatal(err)
	}
	out := stdout.String()
	if !strings.Contains(out, "resuming from") {
		t.Errorf("resume did not say where it resumed from:\n%s", out)
	}
	if !bytes.Equal(latest(t, straight), latest(t, split)) {
		t.Fatal("1 + resume + 2 iterations differs from 3 iterations")
	}
}

func TestTrainConfigFileAndFlags(t *testing.T) {
	dir := t.TempDir()
	cfgPath := filepath.Join(dir, "cfg.json")
	os.WriteFile(cfgPath, []byte(`{"seed": 9, "tau": 0.5, "rl": {"iterations": 1, "batch_size": 32, "update_epochs": 1, "tasks_per_iter": 4, "episodes_per_task": 2, "rounds": 2}}`), 0o644)
	// -q prints no resolved config: the checkpoint's is checked below.
	if out := train(t, filepath.Join(dir, "run"), "--config", cfgPath, "--tau", "0.3"); strings.Contains(out, "resolved config") {
		t.Errorf("-q printed the resolved config:\n%s", out)
	}
	c, err := checkpoints.Load(filepath.Join(dir, "run", "best.mpdf"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(c.Header.Train), `"tau":0.3`) || c.Header.Seed != 9 {
		t.Errorf("checkpoint stores config %s, seed %d", c.Header.Train, c.Header.Seed)
	}
}

func TestTrainRejectsBadConfig(t *testing.T) {
	dir := t.TempDir()
	for name, args := range map[string][]string{
		"unknown field": {"--config", writeFile(t, dir, "a.json", `{"sede": 1}`)},
		"bad tau":       {"--tau", "-1"},
		"bad hidden":    {"--hidden", "64,x"},
		"bad schedule":  {"--schedule", "sawtooth"},
		"missing init":  {"--init", filepath.Join(dir, "none.safetensors")},
		"env and files": {"--env", "replay:x.json", filepath.Join(dir, "a.json")},
	} {
		root := newRoot()
		root.SetOut(&bytes.Buffer{})
		root.SetErr(&bytes.Buffer{})
		root.SetArgs(append([]string{"train", "-q", "--out", filepath.Join(dir, "r")}, args...))
		if err := root.Execute(); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// episodesFile writes simulator episodes (and extra raw lines) to a JSONL file.
func episodesFile(t *testing.T, dir string, extra ...string) string {
	t.Helper()
	sim, err := sim.New(sim.Config{Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := metapolicy.NewHeuristic("random")
	eps, err := env.Collect(sim, p, env.RunOptions{NumTasks: 12, Episodes: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := data.NewWriter(&buf)
	for i := range eps {
		if err := w.WriteEpisode(&eps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, l := range extra {
		buf.WriteString(l + "\n")
	}
	return writeFile(t, dir, "episodes.jsonl", buf.String())
}

func TestTrainOffline(t *testing.T) {
	dir := t.TempDir()
	path := episodesFile(t, dir)
	out := train(t, filepath.Join(dir, "run"), "--iterations", "2", path)
	if !strings.Contains(out, "actions of the rollouts") || !strings.Contains(out, "RL: 2 passes") {
		t.Errorf("offline run output:\n%s", out)
	}
	if _, err := checkpoints.Load(filepath.Join(dir, "run", "best.mpdf")); err != nil {
		t.Fatal(err)
	}
}

func TestTrainOfflineBadRecord(t *testing.T) {
	dir := t.TempDir()
	path := episodesFile(t, dir, `{"kind":"decision","group":"g","features":[1],"action":"wait","reward":0}`)
	root := newRoot()
	var stderr bytes.Buffer
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&stderr)
	root.SetArgs(append(append([]string{"train", "--out", filepath.Join(dir, "strict")}, tiny...), "--iterations", "1", path))
	err := root.Execute()
	if err == nil || !strings.Contains(err.Error(), "episodes.jsonl:37") {
		t.Fatalf("strict run: err = %v, want the file:line of the bad record", err)
	}
	stderr.Reset()
	root = newRoot()
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&stderr)
	root.SetArgs(append(append([]string{"train", "--out", filepath.Join(dir, "skip")}, tiny...), "--iterations", "1", "--skip-invalid", path))
	if err := root.Execute(); err != nil {
		t.Fatalf("--skip-invalid run: %v", err)
	}
	if !strings.Contains(stderr.String(), "episodes.jsonl:37") || !strings.Contains(stderr.String(), "rejected") {
		t.Errorf("--skip-invalid did not report the rejected record and the counts:\n%s", stderr.String())
	}
}

// Online training on recorded transcripts: rounds follow the recording and
// the evaluation runs on held-out questions only.
func TestTrainReplay(t *testing.T) {
	dir := testenv.Shared(t, "data", "debates", "slm-debate", "gsm")
	glob := filepath.Join(dir, "*Qwen3-0.6B*agents3*.json")
	out := train(t, t.TempDir(), "--env", "replay:"+glob, "--iterations", "2", "--sft-epochs", "0", "--eval-tasks", "5")
	for _, want := range []string{"rl.rounds set to 2", "distinct questions for training;", "held out", "evaluation on 5 held-out tasks of replay:"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

// --init starts from exported weights: with no training at all (0 SFT
// epochs, 0 iterations) the exported policy comes back unchanged.
func TestTrainInitFromSafetensors(t *testing.T) {
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	train(t, first, "--iterations", "1")
	w0 := filepath.Join(first, "policy.safetensors")
	second := filepath.Join(dir, "second")
	train(t, second, "--iterations", "0", "--sft-epochs", "0", "--init", w0, "--hidden", "99")
	a, _, err := checkpoints.LoadSafetensors(w0)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := checkpoints.LoadSafetensors(filepath.Join(second, "policy.safetensors"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Params, b.Params) || !slices.Equal(a.Sizes, b.Sizes) {
		t.Errorf("--init weights %v did not come back unchanged: %v", a.Sizes, b.Sizes)
	}
	c, err := checkpoints.Load(filepath.Join(second, checkpoints.StepName(0)))
	if err != nil {
		t.Fatalf("no step-0 checkpoint after a run without RL: %v", err)
	}
	if !slices.Equal(c.Policy.Params, a.Params) {
		t.Error("the step-0 checkpoint does not hold the initial weights")
	}
}

func TestTrainBestMetric(t *testing.T) {
	dir := t.TempDir()
	train(t, dir, "--iterations", "3", "--best-metric", "-kl")
	best, err := checkpoints.Load(filepath.Join(dir, "best.mpdf"))
	if err != nil {
		t.Fatal(err)
	}
	// "-kl": best.mpdf holds the lowest KL of every checkpoint kept.
	paths, _ := filepath.Glob(filepath.Join(dir, "ckpt-*.mpdf"))
	for _, p := range paths {
		c, err := checkpoints.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if kl, ok := c.Header.Metrics["kl"]; ok && kl < best.Header.Metrics["kl"] {
			t.Errorf("%s has kl %v below best.mpdf's %v", p, kl, best.Header.Metrics["kl"])
		}
	}
	root := newRoot()
	root.SetOut(&bytes.Buffer{})
	root.SetErr(&bytes.Buffer{})
	root.SetArgs([]string{"train", "-q", "--out", t.TempDir(), "--best-metric", "accuracy"})
	if err := root.Execute(); err == nil || !strings.Contains(err.Error(), "--best-metric") {
		t.Errorf("unknown best metric: err = %v", err)
	}
}

// Features v2 end to end: `train --features v2` records the layout in its
// checkpoints and its safetensors export; eval loads either file and plays
// it through that layout (the --policy loader collect and simulate share); --init of a v1 run refuses v2
// weights. A v1 run stays v1.
func TestTrainFeaturesV2EndToEnd(t *testing.T) {
	dir := t.TempDir()
	v2 := filepath.Join(dir, "v2")
	train(t, v2, "--iterations", "1", "--features", metapolicy.FeatureVersionV2)
	best := filepath.Join(v2, "best.mpdf")
	c, err := checkpoints.Load(best, checkpoints.WithFeatureVersion(metapolicy.FeatureVersionV2))
	if err != nil {
		t.Fatalf("v2 checkpoint: %v", err)
	}
	if c.Policy.In() != metapolicy.FeatureWidthV2 {
		t.Errorf("v2 network reads %d features, want %d", c.Policy.In(), metapolicy.FeatureWidthV2)
	}
	weights := filepath.Join(v2, "policy.safetensors")
	if _, meta, err := checkpoints.LoadSafetensors(weights, checkpoints.WithFeatureVersion("")); err != nil || meta[checkpoints.MetaFeatureVersion] != metapolicy.FeatureVersionV2 {
		t.Errorf("safetensors feature_version %q (%v), want %s", meta[checkpoints.MetaFeatureVersion], err, metapolicy.FeatureVersionV2)
	}
	for _, p := range []string{best, weights} {
		out, err := runCmd(t, "eval", "--policy", p, "--tasks", "8", "--episodes", "1", "-q")
		if err != nil {
			t.Fatalf("eval --policy %s: %v", p, err)
		}
		if !strings.Contains(out, filepath.Base(p)) {
			t.Errorf("eval of %s does not report it:\n%s", p, out)
		}
	}
	if _, stderr, err := trainErr(t, filepath.Join(dir, "init"), "--iterations", "0", "--init", weights); err == nil {
		t.Errorf("--init of v2 weights into a v1 run: no error\n%s", stderr)
	}
	train(t, filepath.Join(dir, "init2"), "--iterations", "0", "--sft-epochs", "0", "--init", weights, "--features", metapolicy.FeatureVersionV2)

	v1 := filepath.Join(dir, "v1")
	train(t, v1, "--iterations", "1")
	if _, err := checkpoints.Load(filepath.Join(v1, "best.mpdf")); err != nil {
		t.Errorf("default run is not %s: %v", metapolicy.FeatureVersion, err)
	}
}
