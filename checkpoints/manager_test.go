package checkpoints

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

func stepFiles(t *testing.T, dir string) []string {
	t.Helper()
	steps, err := list(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, s := range steps {
		names = append(names, filepath.Base(s.path))
	}
	return names
}

func TestManagerRetention(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, err := Latest(dir); err == nil {
		t.Fatal("Latest of a missing directory succeeded")
	}
	m := &Manager{Dir: dir, KeepLast: 2, BestMetric: "loss"}
	s := newTrainState(t, []int{4, 5, 3}, nn.Tanh, 3)
	// loss by step: the best is step 2 (0.1), later steps are worse.
	losses := map[int64]float64{1: 0.5, 2: 0.1, 3: 0.3, 4: 0.2, 5: 0.4}
	var bestWant *Checkpoint
	for step := int64(1); step <= 5; step++ {
		s.run(1)
		c := s.checkpoint(t)
		c.Header.Metrics = map[string]float64{"loss": losses[step]}
		if step == 2 {
			bestWant = c
		}
		path, err := m.Save(c)
		if err != nil {
			t.Fatal(err)
		}
		if filepath.Base(path) != StepName(step) {
			t.Fatalf("saved %s, want %s", path, StepName(step))
		}
	}
	if got, want := stepFiles(t, dir), []string{"ckpt-00000004.mpdf", "ckpt-00000005.mpdf"}; !slices.Equal(got, want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	latest, err := Latest(dir)
	if err != nil || filepath.Base(latest) != "ckpt-00000005.mpdf" {
		t.Fatalf("Latest = %s, %v", latest, err)
	}
	best, err := Load(filepath.Join(dir, BestName))
	if err != nil {
		t.Fatal(err)
	}
	if best.Header.Step != 2 || !slices.Equal(best.Policy.Params, bestWant.Policy.Params) {
		t.Fatalf("best.mpdf holds step %d, want 2", best.Header.Step)
	}

	// A new Manager (a resumed process) knows the best so far: a worse
	// checkpoint leaves best.mpdf alone, a better one replaces it.
	m2 := &Manager{Dir: dir, KeepLast: 2, BestMetric: "loss"}
	s.run(1)
	c := s.checkpoint(t)
	c.Header.Metrics = map[string]float64{"loss": 0.15}
	if _, err := m2.Save(c); err != nil {
		t.Fatal(err)
	}
	if b, _ := Load(filepath.Join(dir, BestName)); b.Header.Step != 2 {
		t.Fatalf("a worse checkpoint replaced best.mpdf (step %d)", b.Header.Step)
	}
	s.run(1)
	c = s.checkpoint(t)
	c.Header.Metrics = map[string]float64{"loss": 0.05}
	if _, err := m2.Save(c); err != nil {
		t.Fatal(err)
	}
	if b, _ := Load(filepath.Join(dir, BestName)); b.Header.Step != 7 {
		t.Fatalf("best.mpdf holds step %d, want 7", b.Header.Step)
	}
	// Without the metric, best.mpdf stays.
	s.run(1)
	c = s.checkpoint(t)
	c.Header.Metrics = nil
	if _, err := m2.Save(c); err != nil {
		t.Fatal(err)
	}
	if b, _ := Load(filepath.Join(dir, BestName)); b.Header.Step != 7 {
		t.Fatalf("a checkpoint without the metric replaced best.mpdf")
	}
	assertNoTemp(t, dir)
}

func TestManagerHigherIsBetterAndKeepAll(t *testing.T) {
	dir := t.TempDir()
	m := &Manager{Dir: dir, BestMetric: "reward", HigherIsBetter: true}
	s := newTrainState(t, []int{4, 5, 3}, nn.Tanh, 4)
	for i, r := range []float64{0.1, 0.7, 0.7, 0.2} {
		s.run(1)
		c := s.checkpoint(t)
		c.Header.Metrics = map[string]float64{"reward": r}
		if _, err := m.Save(c); err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
	}
	if got := stepFiles(t, dir); len(got) != 4 {
		t.Fatalf("KeepLast 0 kept %v, want all 4", got)
	}
	if b, _ := Load(filepath.Join(dir, BestName)); b.Header.Step != 2 {
		t.Fatalf("best.mpdf holds step %d, want 2 (ties keep the earlier)", b.Header.Step)
	}
}

// Leftover temporary files of a crashed writer are cleaned; the files that
// only look like checkpoints are left alone; the file just written is never
// pruned even when older than the rest.
func TestManagerPruneEdges(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{".ckpt-00000001.mpdf.tmp-123", ".best.mpdf.tmp-9", "ckpt-7.mpdf", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := &Manager{Dir: dir, KeepLast: 1}
	s := newTrainState(t, []int{4, 5, 3}, nn.Tanh, 5)
	s.step = 10
	if _, err := m.Save(s.checkpoint(t)); err != nil {
		t.Fatal(err)
	}
	s.step = 3 // a restart from an earlier step
	path, err := m.Save(s.checkpoint(t))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the checkpoint just written was pruned: %v", err)
	}
	for _, name := range []string{"ckpt-7.mpdf", "notes.txt"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Fatalf("%s was removed", name)
		}
	}
	for _, name := range []string{".ckpt-00000001.mpdf.tmp-123", ".best.mpdf.tmp-9"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
			t.Fatalf("stale %s was kept", name)
		}
	}
}

// A damaged best.mpdf is reported, after the step checkpoint is safely on disk.
func TestManagerCorruptBest(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, BestName), []byte("MPDFCKPT junk"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &Manager{Dir: dir, BestMetric: "loss"}
	path, err := m.Save(sample(t))
	if !errors.Is(err, ErrVersion) && !errors.Is(err, ErrTruncated) {
		t.Fatalf("err = %v, want the best file's error", err)
	}
	if _, lerr := Load(path); lerr != nil {
		t.Fatalf("the step checkpoint is not readable: %v", lerr)
	}
}

// OnBest runs exactly when best.mpdf is replaced, with the bytes it now
// holds; its error is Save's.
func TestManagerOnBest(t *testing.T) {
	dir := t.TempDir()
	var calls []int64
	m := &Manager{Dir: dir, BestMetric: "reward", HigherIsBetter: true}
	m.OnBest = func(c *Checkpoint, data []byte) error {
		onDisk, err := os.ReadFile(filepath.Join(dir, BestName))
		if err != nil || !slices.Equal(onDisk, data) {
			t.Errorf("step %d: OnBest bytes are not best.mpdf's (%v)", c.Header.Step, err)
		}
		calls = append(calls, c.Header.Step)
		return nil
	}
	s := newTrainState(t, []int{4, 5, 3}, nn.Tanh, 4)
	for i, r := range []float64{0.1, 0.7, 0.7, 0.2, 0.9} {
		s.run(1)
		c := s.checkpoint(t)
		if i != 3 {
			c.Header.Metrics = map[string]float64{"reward": r}
		}
		if _, err := m.Save(c); err != nil {
			t.Fatalf("save %d: %v", i, err)
		}
	}
	if want := []int64{1, 2, 5}; !slices.Equal(calls, want) {
		t.Errorf("OnBest at steps %v, want %v", calls, want)
	}
	boom := errors.New("boom")
	m.OnBest = func(*Checkpoint, []byte) error { return boom }
	s.run(1)
	c := s.checkpoint(t)
	c.Header.Metrics = map[string]float64{"reward": 1}
	if _, err := m.Save(c); !errors.Is(err, boom) {
		t.Errorf("Save with a failing OnBest: %v", err)
	}
}

// BestLast keeps the latest checkpoint as best.mpdf, whatever its metrics,
// and a fresh Manager (a resumed run) goes on from it.
func TestManagerBestLast(t *testing.T) {
	dir := t.TempDir()
	s := newTrainState(t, []int{4, 5, 3}, nn.Tanh, 4)
	save := func(m *Manager, reward float64) int64 {
		s.run(1)
		c := s.checkpoint(t)
		c.Header.Metrics = map[string]float64{"reward": reward}
		if _, err := m.Save(c); err != nil {
			t.Fatal(err)
		}
		return c.Header.Step
	}
	m := &Manager{Dir: dir, BestMetric: BestLast, HigherIsBetter: true}
	save(m, 0.9)
	last := save(m, 0.1)
	if b, _ := Load(filepath.Join(dir, BestName)); b.Header.Step != last {
		t.Fatalf("best.mpdf holds step %d, want the latest, %d", b.Header.Step, last)
	}
	last = save(&Manager{Dir: dir, BestMetric: BestLast, HigherIsBetter: true}, 0.0)
	if b, _ := Load(filepath.Join(dir, BestName)); b.Header.Step != last {
		t.Fatalf("after a resume best.mpdf holds step %d, want the latest, %d", b.Header.Step, last)
	}
}
