package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
)

// A checkpoint trained online on a replay is evaluated by default on the
// held-out side of its own split, not on the questions it trained on;
// --split all plays them all.
func TestEvalCheckpointDefaultsToItsHeldOutSide(t *testing.T) {
	dir := t.TempDir()
	writeTranscript(t, dir) // 3 questions
	out := filepath.Join(dir, "run")
	spec := "replay:" + filepath.Join(dir, "gsm_*.json")
	train(t, out, "--env", spec, "--iterations", "1", "--held-out", "0.4", "--split-seed", "3")
	best := filepath.Join(out, "best.mpdf")

	eval := func(args ...string) (tasks int, stderr string) {
		t.Helper()
		root := newRoot()
		var o, e bytes.Buffer
		root.SetOut(&o)
		root.SetErr(&e)
		root.SetArgs(append([]string{"eval", "--env", spec, "--policy", best, "--no-baselines", "-q", "--json"}, args...))
		if err := root.Execute(); err != nil {
			t.Fatalf("eval %v: %v\n%s", args, err, e.String())
		}
		var rs []env.Result
		if err := json.Unmarshal(o.Bytes(), &rs); err != nil || len(rs) != 1 {
			t.Fatalf("eval %v: %v %s", args, err, o.String())
		}
		return rs[0].Tasks, e.String()
	}
	n, stderr := eval()
	if n != 1 || !strings.Contains(stderr, "evaluating on the held-out side") || !strings.Contains(stderr, "0.40") {
		t.Errorf("default: %d tasks (want the 1 held-out question of 3); stderr %q", n, stderr)
	}
	if n, _ := eval("--split", "all"); n != 3 {
		t.Errorf("--split all: %d tasks, want 3", n)
	}
	if n, _ := eval("--split", "train"); n != 2 {
		t.Errorf("--split train: %d tasks, want the checkpoint's 2 training questions", n)
	}
}
