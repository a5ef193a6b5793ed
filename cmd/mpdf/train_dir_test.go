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
	"github.com/mpdf/mpdf/trainer/run"
)

// trainErr runs train with the tiny settings and returns its output and
// error.
func trainErr(t *testing.T, out string, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	root := newRoot()
	var o, e bytes.Buffer
	root.SetOut(&o)
	root.SetErr(&e)
	root.SetArgs(append(append([]string{"train", "--out", out}, tiny...), args...))
	err = root.Execute()
	return o.String(), e.String(), err
}

// resume continues the run in out with only the given flags: the rest
// comes from the checkpoint.
func resume(t *testing.T, out string, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var o, e bytes.Buffer
	root.SetOut(&o)
	root.SetErr(&e)
	root.SetArgs(append([]string{"train", "-q", "--out", out, "--resume"}, args...))
	err := root.Execute()
	return o.String() + e.String(), err
}

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Issue 12.1: a fresh run never mixes with a run already in --out, and a
// bad input is reported before the directory is touched.
func TestTrainRefusesNonEmptyOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "run")
	train(t, out, "--iterations", "3")
	metrics := readFile(t, filepath.Join(out, "metrics.jsonl"))
	best := readFile(t, filepath.Join(out, "best.mpdf"))

	_, _, err := trainErr(t, out, "--iterations", "1")
	if err == nil || !strings.Contains(err.Error(), "--resume") || !strings.Contains(err.Error(), "--overwrite") {
		t.Fatalf("fresh run into a run directory: err = %v, want a refusal suggesting --resume or --overwrite", err)
	}
	// A typo in an input, even with --overwrite, leaves the run as it was.
	if _, _, err := trainErr(t, out, "--overwrite", "--sft-labels", "thresold"); err == nil {
		t.Fatal("a bad --sft-labels was accepted")
	}
	_, _, err = trainErr(t, out, "--overwrite", "--iterations", "1", filepath.Join(dir, "no-such-episodes.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "no-such-episodes.jsonl") {
		t.Fatalf("missing input: err = %v", err)
	}
	if !bytes.Equal(readFile(t, filepath.Join(out, "metrics.jsonl")), metrics) || !bytes.Equal(readFile(t, filepath.Join(out, "best.mpdf")), best) {
		t.Fatal("a refused run changed metrics.jsonl or best.mpdf")
	}

	// --overwrite starts afresh: nothing of the old run is left to mix in.
	mine := writeFile(t, out, "notes.txt", "mine")
	train(t, out, "--overwrite", "--iterations", "1", "--seed", "9")
	paths, _ := filepath.Glob(filepath.Join(out, "ckpt-*.mpdf"))
	for _, p := range paths {
		c, err := checkpoints.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		if c.Header.Seed != 9 {
			t.Errorf("%s of the old run survived --overwrite", p)
		}
	}
	if c, err := checkpoints.Load(filepath.Join(out, "best.mpdf")); err != nil || c.Header.Seed != 9 {
		t.Errorf("best.mpdf after --overwrite: %v, seed %d", err, c.Header.Seed)
	}
	if _, err := os.Stat(mine); err != nil {
		t.Errorf("--overwrite removed a file no run writes: %v", err)
	}
}

// Issue 12.2: one process writes a run directory; a lock left by a dead
// process does not block the next run.
func TestTrainOneWriterPerDir(t *testing.T) {
	out := t.TempDir()
	l, err := run.LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = trainErr(t, out, "--iterations", "1")
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("pid %d", os.Getpid())) {
		t.Fatalf("second writer: err = %v, want a refusal naming pid %d", err, os.Getpid())
	}
	if _, err := resume(t, out); err == nil {
		t.Fatal("--resume of a directory without checkpoints was accepted")
	}
	l.Unlock()

	// A stale lock file (its process gone, so no flock) is taken over.
	writeFile(t, out, run.LockName, "pid 999999 on a-host-long-gone\n")
	train(t, out, "--iterations", "1")
	if b := readFile(t, filepath.Join(out, run.LockName)); len(b) != 0 {
		t.Errorf("the lock file names a holder after the run ended: %q", b)
	}
}

// metricLines reads metrics.jsonl as (step, iter, values without step_time).
func metricLines(t *testing.T, path string) []string {
	t.Helper()
	var out []string
	for _, line := range strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%s: %v: %q", path, err, line)
		}
		delete(m, "step_time")
		b, _ := json.Marshal(m) // keys sorted
		out = append(out, string(b))
	}
	return out
}

func sharesLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "actions sampled, first → last fifth") {
			return l
		}
	}
	return ""
}

// Issue 12.3: after a crash (checkpoints behind the log, a torn last line)
// --resume leaves one history: metrics.jsonl, the curve and the "first →
// last fifth" line are those of a run never interrupted.
func TestTrainResumeKeepsOneHistory(t *testing.T) {
	straight, split := t.TempDir(), t.TempDir()
	want := train(t, straight, "--iterations", "5", "--keep", "0")
	train(t, split, "--iterations", "5", "--keep", "0")
	// Crash after iteration 2: later checkpoints never written, the log
	// ahead of the checkpoint and torn mid-line.
	paths, _ := filepath.Glob(filepath.Join(split, "ckpt-*.mpdf"))
	if len(paths) != 6 {
		t.Fatalf("%d step checkpoints, want 6 (step 0 and 5 iterations)", len(paths))
	}
	for _, p := range paths[3:] {
		os.Remove(p)
	}
	mf := filepath.Join(split, "metrics.jsonl")
	b := readFile(t, mf)
	os.WriteFile(mf, b[:len(b)-40], 0o644)

	got, err := resume(t, split)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(latest(t, straight), latest(t, split)) {
		t.Error("resumed run's last checkpoint differs from the straight run's")
	}
	a, b2 := metricLines(t, filepath.Join(straight, "metrics.jsonl")), metricLines(t, mf)
	if strings.Join(a, "\n") != strings.Join(b2, "\n") {
		t.Errorf("metrics.jsonl after resume: %d lines, straight run %d; they differ", len(b2), len(a))
	}
	if !bytes.Equal(readFile(t, filepath.Join(straight, "curve.png")), readFile(t, filepath.Join(split, "curve.png"))) {
		t.Error("curve.png after resume differs from the straight run's: it does not plot the whole run")
	}
	if s := sharesLine(want); s == "" || s != sharesLine(got) {
		t.Errorf("action shares line: straight %q, resumed %q", s, sharesLine(got))
	}
}

// Issue 12.3: options given at the start are kept by --resume.
func TestTrainResumeRemembersOptions(t *testing.T) {
	out := t.TempDir()
	train(t, out, "--iterations", "1", "--best-metric", "-kl", "--keep", "1") // tiny has --eval-tasks 0
	got, err := resume(t, out, "--iterations", "2")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(got, "evaluation on") {
		t.Errorf("--eval-tasks 0 was forgotten on resume:\n%s", got)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "ckpt-*.mpdf"))
	if len(paths) != 1 {
		t.Errorf("--keep 1 forgotten on resume: %d step checkpoints", len(paths))
	}
	r, err := run.Latest(out)
	if err != nil {
		t.Fatal(err)
	}
	if o := r.Position.Options; o == nil || o.BestMetric != "-kl" || o.EvalTasks != 0 || o.Keep != 1 {
		t.Errorf("stored options %+v", o)
	}
}

// Issue 12.3: an offline run resumes on its own data, never online, and
// other data only when told.
func TestTrainOfflineResumeKeepsItsData(t *testing.T) {
	dir := t.TempDir()
	path := episodesFile(t, dir)
	out := filepath.Join(dir, "run")
	train(t, out, "--iterations", "1", path)

	got, err := resume(t, out, "--iterations", "2")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, "RL: 2 passes") {
		t.Errorf("offline run resumed without its data did not go on offline:\n%s", got)
	}
	other := writeFile(t, t.TempDir(), "episodes.jsonl", string(readFile(t, path))+string(readFile(t, path)))
	if _, err := resume(t, out, "--iterations", "3", other); err == nil || !strings.Contains(err.Error(), "differ") {
		t.Errorf("resume on other data: err = %v, want a refusal", err)
	}
	if got, err := resume(t, out, "--iterations", "3", "--allow-other-data", other); err != nil || !strings.Contains(got, "RL: 3 passes") {
		t.Errorf("resume on other data with --allow-other-data: %v\n%s", err, got)
	}

	online := filepath.Join(dir, "online")
	train(t, online, "--iterations", "1")
	if _, err := resume(t, online, path); err == nil || !strings.Contains(err.Error(), "--resume: ") || !strings.Contains(err.Error(), "cannot go on offline") {
		t.Errorf("an online run resumed offline: %v, want --resume refused", err)
	}
}

// Issue 12.7: counts that cannot be negative are refused, as is a config
// file with a second object.
func TestTrainRefusesBadCounts(t *testing.T) {
	dir := t.TempDir()
	for flag, args := range map[string][]string{
		"--threads":       {"--threads", "-1"},
		"--keep":          {"--keep", "-1"},
		"--feature-width": {"--feature-width", "-3"},
		"--eval-tasks":    {"--eval-tasks", "-2"},
		"--metrics-every": {"--metrics-every", "epoch"},
		"--lambda":        {"--w-local", "0", "--w-global", "0", "--lambda", "0"},
		"cfg.json":        {"--config", writeFile(t, dir, "cfg.json", `{"seed": 2} {"seed": 3}`)},
	} {
		out := filepath.Join(dir, "run")
		_, _, err := trainErr(t, out, args...)
		if err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%v: err = %v, want one naming %s", args, err, flag)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%v: the refused run created --out", args)
		}
	}
}

// A resumed run goes on from its checkpoint: --init is refused in the
// words of both flags, before anything is written.
func TestTrainInitResume(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run")
	if _, _, err := trainErr(t, out); err != nil {
		t.Fatal(err)
	}
	_, err := resume(t, out, "--init", filepath.Join(out, "best.mpdf"))
	if err == nil || err.Error() != "--init and --resume: a resumed run goes on from its checkpoint" {
		t.Errorf("--init with --resume: %v", err)
	}
}
