package run

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

func tinyConfig() trainer.Config {
	c := trainer.DefaultConfig()
	c.Hidden = []int{8}
	c.SFT.Epochs = 1
	c.RL.Iterations = 2
	c.RL.TasksPerIter, c.RL.EpisodesPerTask, c.RL.BatchSize, c.RL.UpdateEpochs = 6, 3, 32, 2
	return c
}

func simConfig(t *testing.T) Config {
	t.Helper()
	c := tinyConfig()
	sim, err := sim.New(sim.Config{Seed: c.Seed})
	if err != nil {
		t.Fatal(err)
	}
	return Config{Train: c, Env: sim, EnvName: "sim"}
}

// A run in memory trains the same policy as one in a directory, and
// writes nothing.
func TestRunInMemoryEqualsRunInDir(t *testing.T) {
	t.Chdir(t.TempDir())
	mem, err := Train(context.Background(), simConfig(t), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if entries, _ := os.ReadDir("."); len(entries) != 0 {
		t.Errorf("an in-memory run wrote %d entries into the working directory", len(entries))
	}
	dir := filepath.Join(t.TempDir(), "run")
	cfg := simConfig(t)
	cfg.Dir = dir
	disk, err := Train(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(mem.Policy.Params, disk.Policy.Params) {
		t.Error("the in-memory run's policy differs from the directory run's")
	}
	// The directory's exported weights are best.mpdf's (export_test.go).
	checkWeights(t, dir, checkpoints.BestName)
	if mem.Steps != disk.Steps || mem.Steps == 0 {
		t.Errorf("steps: %d in memory, %d in a directory", mem.Steps, disk.Steps)
	}
}

// memSource is offline data held in memory.
type memSource struct{ s trainer.Samples }

func (m *memSource) Pass(each func(*trainer.Samples) error) (trainer.PassStats, error) {
	return trainer.PassStats{Rows: int64(m.s.Len()), Chunks: 1}, each(&m.s)
}

// Offline data need not come from files: any Source trains.
func TestRunOfflineFromMemory(t *testing.T) {
	src := memRows()
	var iters []int
	res, err := Train(context.Background(), Config{Train: tinyConfig(), Data: &src}, Hooks{
		Iteration: func(it Iteration) { iters = append(iters, it.Iter) },
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Mode != "offline" || res.Iterations != 2 || !slices.Equal(iters, []int{1, 2}) || res.Steps == 0 {
		t.Errorf("mode %s, %d iterations (hooks saw %v), %d steps", res.Mode, res.Iterations, iters, res.Steps)
	}
}

// chunkedSource delivers its rows in chunks of 12 and calls after at the
// end of every chunk.
type chunkedSource struct {
	memSource
	passes int
	after  func(pass, chunk int)
}

func (c *chunkedSource) Pass(each func(*trainer.Samples) error) (trainer.PassStats, error) {
	c.passes++
	s, f := &c.s, metapolicy.FeatureWidth
	for k, lo := 0, 0; lo < s.Len(); k, lo = k+1, lo+12 {
		hi := min(lo+12, s.Len())
		part := trainer.Samples{Features: s.Features[lo*f : hi*f], Actions: s.Actions[lo:hi], Rewards: s.Rewards[lo:hi], Groups: s.Groups[lo:hi]}
		if err := each(&part); err != nil {
			return trainer.PassStats{}, err
		}
		if c.after != nil {
			c.after(c.passes, k)
		}
	}
	return trainer.PassStats{Rows: int64(s.Len())}, nil
}

func memRows() memSource {
	var src memSource
	for i := range 60 {
		row := make([]float32, metapolicy.FeatureWidth)
		row[i%metapolicy.FeatureWidth] = 1
		src.s.Features = append(src.s.Features, row...)
		src.s.Actions = append(src.s.Actions, uint8(i%3))
		src.s.Rewards = append(src.s.Rewards, float64(i%5))
		src.s.Groups = append(src.s.Groups, fmt.Sprint("g", i/6))
	}
	return src
}

// Stopped in the middle of a pass, an offline run leaves a log that ends
// at its last checkpoint: the steps of the unfinished pass are dropped.
func TestRunStoppedMidPassRewindsTheLog(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Pass 1 checks the data, 2 is the supervised stage, 3 the first RL
	// iteration; stop after the first chunk of the second.
	src := &chunkedSource{memSource: memRows(), after: func(pass, chunk int) {
		if pass == 4 && chunk == 0 {
			cancel()
		}
	}}
	dir := t.TempDir()
	cfg := tinyConfig()
	cfg.RL.Iterations = 5
	_, err := Train(ctx, Config{Train: cfg, Data: src, Dir: dir}, Hooks{})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want a stop", err)
	}
	r, err := Latest(dir)
	if err != nil {
		t.Fatal(err)
	}
	l := &metricsLog{}
	if err := l.load(filepath.Join(dir, MetricsName), 1<<62, nil); err != nil {
		t.Fatal(err)
	}
	if r.Position.Iter != 1 || l.lines == 0 || l.last != r.Checkpoint.Header.Step {
		t.Errorf("stopped at iteration %d, step %d; the log has %d lines, ending at step %d", r.Position.Iter, r.Checkpoint.Header.Step, l.lines, l.last)
	}
}

// A cancelled context stops the run with ctx's error, the lock released.
func TestRunStopsOnCancel(t *testing.T) {
	cfg := simConfig(t)
	cfg.Dir = t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	_, err := Train(ctx, cfg, Hooks{Iteration: func(Iteration) { cancel() }})
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "stopped after 1 iterations") {
		t.Fatalf("err = %v, want a stop after 1 iteration", err)
	}
	r, err := Latest(cfg.Dir)
	if err != nil || r.Position.Iter != 1 {
		t.Fatalf("latest checkpoint: %v, iteration %d", err, r.Position.Iter)
	}
	l, err := LockDir(cfg.Dir)
	if err != nil {
		t.Fatalf("the lock was not released: %v", err)
	}
	l.Unlock()
}

func TestLockDirNamesTheHolder(t *testing.T) {
	dir := t.TempDir()
	a, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(dir)
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), fmt.Sprintf("pid %d on ", os.Getpid())) {
		t.Fatalf("second lock: %v", err)
	}
	a.Unlock()
	b, err := LockDir(dir)
	if err != nil {
		t.Fatalf("lock after unlock: %v", err)
	}
	b.Unlock()
}

// A metrics line that cannot be written stops the run with the error.
func TestMetricsWriteErrorIsReturned(t *testing.T) {
	f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full:", err)
	}
	l := &metricsLog{f: f}
	defer l.close()
	if err := l.add(StepLine{Step: 1}); err == nil || !strings.Contains(err.Error(), MetricsName) {
		t.Fatalf("write to a full device: err = %v", err)
	}
}

// A skipped step's metrics may be NaN, which JSON cannot hold: its line
// says why it was skipped instead, and the run goes on.
func TestMetricsSkippedStepLine(t *testing.T) {
	dir := t.TempDir()
	l, err := openMetrics(dir, MetricsEveryStep, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	line := StepLine{Step: 2, Iter: 1, Skipped: "trainer: non-finite loss"}
	line.Loss = math.NaN()
	if err := l.add(line); err != nil {
		t.Fatal(err)
	}
	l.close()
	b, _ := os.ReadFile(filepath.Join(dir, MetricsName))
	if want := `{"step":2,"iter":1,"skipped":"trainer: non-finite loss"}` + "\n"; string(b) != want {
		t.Errorf("skipped line %q, want %q", b, want)
	}
}

// Resuming truncates the log to the checkpoint's step, dropping a torn
// last line, and refuses a damaged line before it.
func TestOpenMetricsTruncatesToTheCheckpoint(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, MetricsName)
	os.WriteFile(path, []byte(`{"step":1,"iter":0}`+"\n"+`{"step":2,"iter":0}`+"\n"+`{"step":3,"iter":1}`+"\n"+`{"step":4,"it`), 0o644)
	l, err := openMetrics(dir, MetricsEveryStep, true, 2)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.add(StepLine{Step: 3, Iter: 1}); err != nil {
		t.Fatal(err)
	}
	l.close()
	b, _ := os.ReadFile(path)
	if lines := strings.Count(string(b), "\n"); lines != 3 || l.lines != 3 || strings.Contains(string(b), `"it`+"\n") {
		t.Errorf("log after resume at step 2:\n%s", b)
	}
	os.WriteFile(path, []byte("{\"step\":1}\nnot json\n{\"step\":2}\n"), 0o644)
	if _, err := openMetrics(dir, MetricsEveryStep, true, 2); err == nil || !strings.Contains(err.Error(), MetricsName+":2") {
		t.Errorf("damaged line: err = %v, want file:line", err)
	}
}

// A Teacher that labels as the heuristic Train.SFT.Labels does trains the
// very policy of the heuristic run; with Again it is asked once more, with
// the clone, and the supervised stage runs its epochs again.
func TestRunTeacherHook(t *testing.T) {
	plain, err := Train(context.Background(), simConfig(t), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	var clones []bool
	cfg := simConfig(t)
	h, err := metapolicy.ParseHeuristic(cfg.Train.SFT.Labels)
	if err != nil {
		t.Fatal(err)
	}
	fz, _ := metapolicy.FeaturizerFor("")
	cfg.Teacher = &Teacher{Name: "same labels", Label: func(e env.Env, tasks []int, clone metapolicy.Policy) ([]float32, []uint8, error) {
		clones = append(clones, clone != nil)
		return trainer.LabelsFor(e, h, tasks, cfg.Train.RL.Rounds, cfg.Train.Seed, fz)
	}}
	taught, err := Train(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(plain.Policy.Params, taught.Policy.Params) {
		t.Error("a teacher with the heuristic's labels trained another policy than the heuristic run")
	}
	if !slices.Equal(clones, []bool{false}) || taught.SFT.What != "same labels" {
		t.Errorf("teacher called with clones %v, sft %q", clones, taught.SFT.What)
	}
	clones = nil
	cfg.Teacher.Again = 1
	again, err := Train(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(clones, []bool{false, true}) {
		t.Errorf("teacher with one DAgger round called with clones %v, want [false true]", clones)
	}
	if again.SFT.Epochs != 2*cfg.Train.SFT.Epochs || again.SFT.Rows != 2*taught.SFT.Rows {
		t.Errorf("DAgger round: %d epochs of %d rows, want %d of %d", again.SFT.Epochs, again.SFT.Rows, 2*cfg.Train.SFT.Epochs, 2*taught.SFT.Rows)
	}
	if slices.Equal(again.Policy.Params, taught.Policy.Params) {
		t.Error("a DAgger round left the policy unchanged")
	}
	cfg.Teacher.Label = nil
	if _, err := Train(context.Background(), cfg, Hooks{}); err == nil {
		t.Error("a teacher without Label: no error")
	}
}

// An online run reads Train.Features: a v2 run's network reads the v2
// width and its checkpoints record v2.
func TestRunFeaturesV2(t *testing.T) {
	cfg := simConfig(t)
	cfg.Train.Features = metapolicy.FeatureVersionV2
	cfg.Dir = filepath.Join(t.TempDir(), "run")
	res, err := Train(context.Background(), cfg, Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Policy.In() != metapolicy.FeatureWidthV2 {
		t.Errorf("v2 run's network reads %d features, want %d", res.Policy.In(), metapolicy.FeatureWidthV2)
	}
	p, err := checkpoints.LoadPolicy(filepath.Join(cfg.Dir, "best.mpdf"), "v2")
	if err != nil {
		t.Fatal(err)
	}
	if fp, ok := p.(*metapolicy.FeaturizedPolicy); !ok || fp.Features.Version != metapolicy.FeatureVersionV2 {
		t.Errorf("loaded %T, want a v2 FeaturizedPolicy", p)
	}
	if _, err := env.Evaluate(cfg.Env, []metapolicy.Policy{p}, env.RunOptions{NumTasks: 4, Workers: 1}); err != nil {
		t.Errorf("evaluate the v2 checkpoint: %v", err)
	}
}
