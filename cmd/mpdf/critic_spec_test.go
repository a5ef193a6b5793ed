package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// ckptConfidence is the confidence source a checkpoint records.
func ckptConfidence(t *testing.T, path string) string {
	t.Helper()
	ck, err := checkpoints.Load(path, checkpoints.WithFeatureVersion(""))
	if err != nil {
		t.Fatal(err)
	}
	return checkpoints.ConfidenceSource(&ck.Header)
}

// A run trained on a replay with critic=on records it with its
// environment: its checkpoints say text-critic, a resume reopens the
// replay with the critic (and refuses the same files without it), and an
// evaluation of the checkpoint defaults to its held-out side with the
// critic on — the confidence the policy trained on.
func TestTrainCriticSpecResumeAndEval(t *testing.T) {
	dir := t.TempDir()
	writeTranscript(t, dir) // 3 questions; agent 0 states "q + 10 = …": critic 1
	out := filepath.Join(dir, "run")
	files := "replay:" + filepath.Join(dir, "gsm_*.json")
	spec := files + ",critic=on"
	train(t, out, "--env", spec, "--iterations", "1", "--held-out", "0.4", "--split-seed", "3")
	best := filepath.Join(out, "best.mpdf")
	if got := ckptConfidence(t, best); got != checkpoints.ConfidenceTextCritic {
		t.Fatalf("confidence source %q, want %q", got, checkpoints.ConfidenceTextCritic)
	}
	if got := mustRun(t, "inspect", best); !regexp.MustCompile(`confidence source +text-critic`).MatchString(got) {
		t.Errorf("inspect does not show the confidence source:\n%s", got)
	}
	if got := mustRun(t, "inspect", filepath.Join(out, "policy.safetensors")); !regexp.MustCompile(`mpdf.confidence_source +text-critic`).MatchString(got) {
		t.Errorf("the run's policy.safetensors does not record the confidence source:\n%s", got)
	}
	st := filepath.Join(dir, "best.safetensors")
	mustRun(t, "export", best, "--safetensors", st)
	if got := mustRun(t, "inspect", st); !regexp.MustCompile(`mpdf.confidence_source +text-critic`).MatchString(got) {
		t.Errorf("export does not record the confidence source:\n%s", got)
	}

	if _, err := resume(t, out, "--iterations", "2", "--env", files); err == nil || !strings.Contains(err.Error(), "critic=on") {
		t.Errorf("resume without the critic: err %v, want a refusal naming the run's spec", err)
	}
	if got, err := resume(t, out, "--iterations", "2"); err != nil || !strings.Contains(got, "resuming from") {
		t.Fatalf("resume: %v\n%s", err, got)
	}
	if got := ckptConfidence(t, filepath.Join(out, "ckpt-00000002.mpdf")); got != checkpoints.ConfidenceTextCritic {
		t.Errorf("resumed checkpoint: confidence source %q, want %q", got, checkpoints.ConfidenceTextCritic)
	}

	// threshold persists on the critic's confidence 1 and refines where the
	// confidence is missing: its action shares tell whether the critic ran.
	eval := func(envSpec string) (map[string]env.Result, string) {
		t.Helper()
		root := newRoot()
		var o, e bytes.Buffer
		root.SetOut(&o)
		root.SetErr(&e)
		root.SetArgs([]string{"eval", "--env", envSpec, "--policy", best + ",threshold", "-q", "--json", "--greedy"})
		if err := root.Execute(); err != nil {
			t.Fatalf("eval --env %s: %v\n%s", envSpec, err, e.String())
		}
		var rs []env.Result
		if err := json.Unmarshal(o.Bytes(), &rs); err != nil || len(rs) != 2 {
			t.Fatalf("eval --env %s: %v %s", envSpec, err, o.String())
		}
		byName := map[string]env.Result{}
		for _, r := range rs {
			byName[r.Policy] = r
		}
		return byName, e.String()
	}
	def, stderr := eval(files)
	if !strings.Contains(stderr, "trained with the text critic") || !strings.Contains(stderr, "held-out side") {
		t.Errorf("default eval: stderr %q, want it to say it plays with the critic on the held-out side", stderr)
	}
	if strings.Contains(stderr, "is not the run's") {
		t.Errorf("default eval: stderr %q warns of other files, but only the critic= part differs", stderr)
	}
	if n := def["threshold"].Tasks; n != 1 {
		t.Errorf("default eval: %d tasks, want the 1 held-out question", n)
	}
	on, _ := eval(spec)
	off, stderr := eval(files + ",critic=off")
	if !strings.Contains(stderr, "warning") || !strings.Contains(stderr, "critic=off") {
		t.Errorf("eval critic=off of a critic-trained checkpoint: stderr %q, want a warning", stderr)
	}
	for name := range on {
		if d := cmp.Diff(on[name], def[name]); d != "" {
			t.Errorf("%s: default eval differs from critic=on's (-critic=on +default):\n%s", name, d)
		}
	}
	if on["threshold"].Actions[metapolicy.Persist] == 0 || off["threshold"].Actions[metapolicy.Persist] != 0 {
		t.Errorf("threshold persists %.2f with the critic and %.2f without; want > 0 and 0 (the critic did not reach the states)",
			on["threshold"].Actions[metapolicy.Persist], off["threshold"].Actions[metapolicy.Persist])
	}
}

// study --critic is critic=on: with critic=on it agrees, with critic=off
// it is refused naming both.
func TestStudyCriticShorthand(t *testing.T) {
	dir := t.TempDir()
	writeTranscript(t, dir)
	files := "replay:" + filepath.Join(dir, "gsm_*.json")
	_, err := runCmd(t, "study", "--env", files+",critic=off", "--critic", "-q", "--out", filepath.Join(dir, "s"))
	if err == nil || !strings.Contains(err.Error(), "--critic") || !strings.Contains(err.Error(), "critic=off") {
		t.Errorf("study --critic with critic=off: err %v, want one naming both", err)
	}
}
