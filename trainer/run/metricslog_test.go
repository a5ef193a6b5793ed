package run

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// logLines decodes a metrics.jsonl.
func logLines(t *testing.T, path string) []StepLine {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []StepLine
	for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var s StepLine
		if err := json.Unmarshal([]byte(l), &s); err != nil {
			t.Fatalf("%s: %q: %v", path, l, err)
		}
		out = append(out, s)
	}
	return out
}

// Offline, metrics.jsonl holds a line per iteration by default, ending at
// the iteration's step (the checkpoint's), averaging as many steps as the
// per-step log of the same run has lines for that iteration, with the
// same reward mean.
func TestMetricsPerIterationOffline(t *testing.T) {
	train := func(every string) string {
		dir := t.TempDir()
		src := memRows()
		cfg := tinyConfig()
		cfg.RL.Iterations = 3
		if _, err := Train(context.Background(), Config{Train: cfg, Data: &src, Dir: dir, MetricsEvery: every}, Hooks{}); err != nil {
			t.Fatal(err)
		}
		return filepath.Join(dir, MetricsName)
	}
	iters, steps := logLines(t, train("")), logLines(t, train(MetricsEveryStep))
	if len(iters) != 3 || len(steps) <= 3 {
		t.Fatalf("%d iteration lines, %d step lines; want 3 and more", len(iters), len(steps))
	}
	for k, it := range iters {
		var n int
		var reward, lo float64
		var last int64
		for _, s := range steps {
			if s.Iter == k {
				if n == 0 || s.AdvMin < lo {
					lo = s.AdvMin
				}
				n++
				reward += s.Reward
				last = s.Step
			}
		}
		if it.Iter != k || it.Step != last || it.Steps != n || it.SkippedSteps != 0 {
			t.Errorf("iteration line %d: %+v; want iter %d, step %d, %d steps", k, it, k, last, n)
		}
		if d := it.Reward - reward/float64(n); d > 1e-12 || d < -1e-12 || it.AdvMin != lo {
			t.Errorf("iteration %d: reward %v, advantages/min %v; the steps' mean %v and min %v", k, it.Reward, it.AdvMin, reward/float64(n), lo)
		}
	}
}

// An offline run stopped mid-pass and resumed writes, per iteration, the
// metrics.jsonl and curve.png of a run never stopped.
func TestMetricsPerIterationResumesExactly(t *testing.T) {
	cfg := tinyConfig()
	cfg.RL.Iterations = 4
	straight := t.TempDir()
	src := &chunkedSource{memSource: memRows()}
	if _, err := Train(context.Background(), Config{Train: cfg, Data: src, Dir: straight}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	split := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stop := &chunkedSource{memSource: memRows(), after: func(pass, chunk int) {
		if pass == 5 && chunk == 1 { // check, sft, iterations 1 and 2, stopped in 3
			cancel()
		}
	}}
	if _, err := Train(ctx, Config{Train: cfg, Data: stop, Dir: split}, Hooks{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a stop", err)
	}
	rs, err := Latest(split)
	if err != nil {
		t.Fatal(err)
	}
	if rs.Position.Iter != 2 {
		t.Fatalf("stopped at iteration %d, want 2", rs.Position.Iter)
	}
	again := &chunkedSource{memSource: memRows()}
	if _, err := Train(context.Background(), Config{Train: cfg, Data: again, Dir: split, Resume: rs}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	// step_time is wall time, the one value two runs do not share.
	a, b := logLines(t, filepath.Join(straight, MetricsName)), logLines(t, filepath.Join(split, MetricsName))
	for _, l := range [][]StepLine{a, b} {
		for i := range l {
			l[i].StepTime = 0
		}
	}
	if d := cmp.Diff(a, b); len(a) != 4 || d != "" {
		t.Errorf("metrics.jsonl: %d lines straight; stopped and resumed differs (-straight +resumed):\n%s", len(a), d)
	}
	ca, _ := os.ReadFile(filepath.Join(straight, CurveName))
	cb, _ := os.ReadFile(filepath.Join(split, CurveName))
	if len(ca) == 0 || !bytes.Equal(ca, cb) {
		t.Errorf("%s: %d bytes straight, %d stopped and resumed; want the same bytes", CurveName, len(ca), len(cb))
	}
}

// A resume keeps the log's grain: another is refused before anything is
// written.
func TestResumeRefusesOtherMetricsGrain(t *testing.T) {
	dir := t.TempDir()
	src := memRows()
	if _, err := Train(context.Background(), Config{Train: tinyConfig(), Data: &src, Dir: dir}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	rs, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(filepath.Join(dir, MetricsName))
	cfg := tinyConfig()
	cfg.RL.Iterations = 3
	_, err = Train(context.Background(), Config{Train: cfg, Data: &src, Dir: dir, Resume: rs, MetricsEvery: MetricsEveryStep}, Hooks{})
	if err == nil || !strings.Contains(err.Error(), "per iteration, this run per step") {
		t.Fatalf("resume per step of a run logged per iteration: %v", err)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, MetricsName)); !bytes.Equal(before, after) {
		t.Error("the refused resume changed metrics.jsonl")
	}
}

// A stop once the iterations are done (while the curve would be drawn)
// ends the run with the stop: no curve.png, every checkpoint kept, the
// log whole.
func TestStopBeforeCurve(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	src := memRows()
	cfg := tinyConfig()
	hooks := Hooks{Iteration: func(it Iteration) {
		if it.Iter == cfg.RL.Iterations {
			cancel()
		}
	}}
	_, err := Train(ctx, Config{Train: cfg, Data: &src, Dir: dir}, hooks)
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped after 2 iterations") {
		t.Fatalf("err = %v, want a stop after 2 iterations", err)
	}
	if _, err := os.Stat(filepath.Join(dir, CurveName)); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("%s after the stop: %v", CurveName, err)
	}
	rs, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	lines := logLines(t, filepath.Join(dir, MetricsName))
	if rs.Position.Iter != 2 || len(lines) != 2 || lines[1].Step != rs.Checkpoint.Header.Step {
		t.Errorf("latest checkpoint at iteration %d step %d; log of %d lines", rs.Position.Iter, rs.Checkpoint.Header.Step, len(lines))
	}
}
