package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/trainer/run"
)

// startTrain starts a long tiny run as a process and waits until its
// run directory holds a checkpoint of at least 2 iterations.
func startTrain(t *testing.T, out string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(mpdfBinary(t), append(append([]string{"train", "--out", out}, tiny...), "--iterations", "100000", "--keep", "0")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if r, err := run.Latest(out); err == nil && r.Position.Iter >= 2 {
			return cmd
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no checkpoint of 2 iterations within 2 minutes; stderr:\n%s", stderr.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// maxStep is the highest step in a metrics.jsonl.
func maxStep(t *testing.T, path string) int64 {
	t.Helper()
	var hi int64
	for _, l := range strings.Split(strings.TrimSpace(string(readFile(t, path))), "\n") {
		var s struct{ Step int64 }
		if json.Unmarshal([]byte(l), &s) == nil && s.Step > hi {
			hi = s.Step
		}
	}
	return hi
}

// Issue 12 (must hold): kill -9 during train, then --resume, as real
// processes: the run goes on as if never interrupted — same checkpoint
// bytes, same metrics.jsonl — and the dead run's lock is taken over.
func TestTrainSurvivesKill9(t *testing.T) {
	out := t.TempDir()
	cmd := startTrain(t, out)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
	if b := readFile(t, filepath.Join(out, run.LockName)); !strings.Contains(string(b), "pid "+strconv.Itoa(cmd.Process.Pid)) {
		t.Errorf("lock file after kill -9: %q, want the dead pid", b)
	}
	r, err := run.Latest(out)
	if err != nil {
		t.Fatal(err)
	}
	n := strconv.Itoa(r.Position.Iter + 2)
	if _, err := resume(t, out, "--iterations", n); err != nil {
		t.Fatal(err)
	}
	straight := t.TempDir()
	train(t, straight, "--iterations", n, "--keep", "0")
	if !bytes.Equal(latest(t, straight), latest(t, out)) {
		t.Errorf("killed at iteration %d and resumed to %s: checkpoint differs from a straight run", r.Position.Iter, n)
	}
	a, b := metricLines(t, filepath.Join(straight, "metrics.jsonl")), metricLines(t, filepath.Join(out, "metrics.jsonl"))
	if strings.Join(a, "\n") != strings.Join(b, "\n") {
		t.Errorf("metrics.jsonl: %d lines after kill and resume, %d straight; they differ", len(b), len(a))
	}
}

// SIGTERM (timeout, Docker, Kubernetes, Slurm) stops the run at an
// iteration boundary: the log matches the last checkpoint, the lock is
// released, and --resume continues.
func TestTrainSIGTERMStopsCleanly(t *testing.T) {
	out := t.TempDir()
	cmd := startTrain(t, out)
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if err == nil {
		t.Fatal("SIGTERM: exit status 0")
	}
	if stderr := cmd.Stderr.(*bytes.Buffer).String(); !strings.Contains(stderr, "stopped after") {
		t.Errorf("SIGTERM: stderr lacks where the run stopped:\n%s", stderr)
	}
	r, err := run.Latest(out)
	if err != nil {
		t.Fatal(err)
	}
	if got := maxStep(t, filepath.Join(out, "metrics.jsonl")); got != r.Checkpoint.Header.Step {
		t.Errorf("metrics.jsonl reaches step %d, the last checkpoint step %d", got, r.Checkpoint.Header.Step)
	}
	if b, err := os.ReadFile(filepath.Join(out, run.LockName)); err == nil && len(b) != 0 {
		t.Errorf("lock file after SIGTERM: %q, want released (removed, or empty)", b)
	}
	if _, err := resume(t, out, "--iterations", strconv.Itoa(r.Position.Iter+1)); err != nil {
		t.Fatal(err)
	}
}

// A full disk (here a file-size limit set by prlimit, which fails
// write(2) with EFBIG as a full disk fails it with ENOSPC) stops the run
// with the error; every checkpoint written stays whole, metrics.jsonl ends
// at the last one with no torn line, and --resume continues.
func TestTrainDiskFullKeepsCheckpoints(t *testing.T) {
	prlimit, err := exec.LookPath("prlimit")
	if err != nil {
		t.Skip("no prlimit")
	}
	out := t.TempDir()
	args := append(append([]string{"--fsize=30000", "--", mpdfBinary(t), "train", "--out", out}, tiny...), "--iterations", "1000", "--keep", "0")
	b, err := exec.Command(prlimit, args...).CombinedOutput()
	if err == nil || !strings.Contains(string(b), "metrics.jsonl") || !strings.Contains(string(b), "file too large") {
		t.Fatalf("train past the size limit: %v\n%s", err, b)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "ckpt-*.mpdf"))
	for _, p := range paths {
		if _, err := checkpoints.Load(p); err != nil {
			t.Errorf("after the failed write: %v", err)
		}
	}
	r, err := run.Latest(out)
	if err != nil {
		t.Fatal(err)
	}
	log := readFile(t, filepath.Join(out, "metrics.jsonl"))
	if len(log) > 0 && log[len(log)-1] != '\n' {
		t.Error("metrics.jsonl ends in a torn line")
	}
	if got := maxStep(t, filepath.Join(out, "metrics.jsonl")); got != r.Checkpoint.Header.Step {
		t.Errorf("metrics.jsonl reaches step %d, the last checkpoint step %d", got, r.Checkpoint.Header.Step)
	}
	if _, err := resume(t, out, "--iterations", strconv.Itoa(r.Position.Iter+1)); err != nil {
		t.Fatal(err)
	}
}
