package main

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/trainer/run"
)

// SIGTERM during the final evaluation (after curve.png, which finish
// draws before it) stops the run instead of playing the evaluation out:
// no eval.json, an exit status saying where the run stopped, every
// checkpoint whole and the lock released. The evaluation is made long
// (500 held-out tasks of 64 rounds, seconds on any machine) so that the
// signal lands inside it; a build that ignored the signal there would
// finish the evaluation, write eval.json and exit 0.
func TestTrainSIGTERMDuringEvaluation(t *testing.T) {
	out := t.TempDir()
	args := append(append([]string{"train", "--out", out}, tiny...),
		"--iterations", "2", "--rounds", "64", "--eval-tasks", "500", "--keep", "0")
	cmd := exec.Command(mpdfBinary(t), args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for {
		if _, err := os.Stat(filepath.Join(out, run.CurveName)); err == nil {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("no %s within 2 minutes; stderr:\n%s", run.CurveName, stderr.String())
		}
		time.Sleep(2 * time.Millisecond)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if err == nil {
		t.Fatalf("SIGTERM during the evaluation: exit status 0; stderr:\n%s", stderr.String())
	}
	if !strings.Contains(stderr.String(), "stopped after 2 iterations") {
		t.Errorf("stderr lacks where the run stopped:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, run.EvalName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after a stop during the evaluation: %v, want none", run.EvalName, err)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "*.mpdf"))
	if len(paths) < 2 {
		t.Errorf("checkpoints after the stop: %v", paths)
	}
	for _, p := range paths {
		if _, err := checkpoints.Load(p); err != nil {
			t.Error(err)
		}
	}
	r, err := run.Latest(out)
	if err != nil {
		t.Fatal(err)
	}
	if r.Position.Iter != 2 {
		t.Errorf("latest checkpoint at iteration %d, want 2", r.Position.Iter)
	}
	if b, err := os.ReadFile(filepath.Join(out, run.LockName)); err == nil && len(b) != 0 {
		t.Errorf("lock file after SIGTERM: %q, want released (removed, or empty)", b)
	}
}
