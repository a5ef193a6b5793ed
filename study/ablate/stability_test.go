package ablate

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/study"
)

// stabilityConfig is a study small enough for a test: 3 iterations of 4
// tasks × 2 episodes, a point every 2 iterations (0, 2 and the last, 3).
func stabilityConfig(seeds, workers int) study.Config {
	c := study.DefaultConfig()
	c.Folds, c.Seeds, c.Lambdas, c.Workers, c.EvalEvery = 3, seeds, []float64{0}, workers, 2
	c.Train.SFT.Epochs = 1
	c.Train.RL.Iterations, c.Train.RL.TasksPerIter, c.Train.RL.EpisodesPerTask = 3, 4, 2
	c.Train.Hidden = []int{8}
	c.Train.RewardNoise = "student-t:1:0.5"
	return c
}

// The curves have one point per held-out evaluation per estimator and
// seed; each band's median and quartiles lie within its min–max over
// the seeds; every seed's point lies within its band; the files are
// written; and the same seeds give the same bytes whatever the workers.
func TestRunStability(t *testing.T) {
	e := must(sim.New(sim.Config{Tasks: 30, Seed: 4}))
	s, err := RunStability(e, stabilityConfig(3, 2))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Curves) != len(StabilityEstimators)*3 || len(s.Bands) != len(StabilityEstimators) {
		t.Fatalf("%d curves, %d bands; want %d and %d", len(s.Curves), len(s.Bands), len(StabilityEstimators)*3, len(StabilityEstimators))
	}
	wantIter := []int{0, 2, 3}
	for _, c := range s.Curves {
		if !slices.Equal(c.Iter, wantIter) || len(c.Accuracy) != len(wantIter) || len(c.Tokens) != len(wantIter) || len(c.Persist) != len(wantIter) {
			t.Errorf("%s seed %d: points at %v (%d accuracies), want %v", c.Estimator, c.Seed, c.Iter, len(c.Accuracy), wantIter)
		}
	}
	for k, b := range s.Bands {
		if b.Estimator != StabilityEstimators[k] || !slices.Equal(b.Iter, wantIter) {
			t.Errorf("band %d: %s at %v", k, b.Estimator, b.Iter)
		}
		for i := range b.Iter {
			if !(b.Min[i] <= b.Q1[i] && b.Q1[i] <= b.Median[i] && b.Median[i] <= b.Q3[i] && b.Q3[i] <= b.Max[i]) {
				t.Errorf("%s at %d: min %v Q1 %v median %v Q3 %v max %v", b.Estimator, b.Iter[i], b.Min[i], b.Q1[i], b.Median[i], b.Q3[i], b.Max[i])
			}
			for _, c := range s.Curves {
				if c.Estimator == b.Estimator && (c.Accuracy[i] < b.Min[i] || c.Accuracy[i] > b.Max[i]) {
					t.Errorf("%s seed %d at %d: %v outside [%v, %v]", c.Estimator, c.Seed, b.Iter[i], c.Accuracy[i], b.Min[i], b.Max[i])
				}
			}
		}
	}
	again, err := RunStability(e, stabilityConfig(3, 1))
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	if err := s.WriteJSON(&a); err != nil {
		t.Fatal(err)
	}
	if err := again.WriteJSON(&b); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same seeds gave different bytes with 1 and 2 workers")
	}

	dir := filepath.Join(t.TempDir(), "out")
	d, err := study.OpenDir(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w, err := CrossValidateOrAblate(d, e, stabilityConfig(3, 2), AblateStability)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(w.Wrote(dir, 0), StabilityPNGName) {
		t.Errorf("Wrote: %q", w.Wrote(dir, 0))
	}
	got, err := os.ReadFile(filepath.Join(dir, StabilityJSONName))
	if err != nil || !bytes.Equal(got, a.Bytes()) {
		t.Errorf("%s: %v; equal to RunStability's: %v", StabilityJSONName, err, bytes.Equal(got, a.Bytes()))
	}
	f, err := os.Open(filepath.Join(dir, StabilityPNGName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.Decode(f); err != nil {
		t.Errorf("%s: %v", StabilityPNGName, err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, StabilityMDName))
	for _, est := range StabilityEstimators {
		if !strings.Contains(string(md), "| "+est+" |") {
			t.Errorf("%s has no row of %s:\n%s", StabilityMDName, est, md)
		}
	}
}

// The seeds' runs differ (the band is over something): different
// training seeds give different noise and different policies; and the
// noise reaches the training (the same seed without it trains another
// policy).
func TestRunStabilitySeedsDiffer(t *testing.T) {
	e := must(sim.New(sim.Config{Tasks: 30, Seed: 4}))
	s, err := RunStability(e, stabilityConfig(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	if s.Seeds[0] == s.Seeds[1] || slices.Equal(s.Curves[0].Tokens, s.Curves[1].Tokens) && slices.Equal(s.Curves[0].Persist, s.Curves[1].Persist) {
		t.Errorf("seeds %v gave the same curve: %+v", s.Seeds, s.Curves[:2])
	}
	c := stabilityConfig(2, 2)
	c.Train.RewardNoise = ""
	quiet, err := RunStability(e, c)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Equal(s.Curves[0].Tokens, quiet.Curves[0].Tokens) && slices.Equal(s.Curves[0].Persist, quiet.Curves[0].Persist) {
		t.Errorf("the noise changed nothing: %+v", s.Curves[0])
	}
}

func TestStabilityBands(t *testing.T) {
	cs := []StabilityCurve{
		{Estimator: "a", Seed: 1, Iter: []int{0, 5}, Accuracy: []float64{0.5, 0.1}},
		{Estimator: "a", Seed: 2, Iter: []int{0, 5}, Accuracy: []float64{0.5, 0.4}},
		{Estimator: "a", Seed: 3, Iter: []int{0, 5}, Accuracy: []float64{0.5, 0.2}},
		{Estimator: "a", Seed: 4, Iter: []int{0, 5}, Accuracy: []float64{0.5, 0.3}},
		{Estimator: "b", Seed: 1, Iter: []int{0, 5}, Accuracy: []float64{0.2, 0.9}},
	}
	bs, err := StabilityBands(cs)
	if err != nil {
		t.Fatal(err)
	}
	a := bs[0]
	// 0.1, 0.2, 0.3, 0.4: median 0.25, Q1 0.175, Q3 0.325 (type 7).
	near := func(x, y float64) bool { return x-y < 1e-12 && y-x < 1e-12 }
	if len(bs) != 2 || a.Estimator != "a" || !near(a.Median[1], 0.25) || !near(a.Q1[1], 0.175) || !near(a.Q3[1], 0.325) ||
		a.Min[1] != 0.1 || a.Max[1] != 0.4 || !near(a.FinalSpread, 0.3) || a.Median[0] != 0.5 {
		t.Errorf("bands %+v", bs)
	}
	if b := bs[1]; b.Median[1] != 0.9 || b.Min[1] != 0.9 || b.Max[1] != 0.9 || b.FinalSpread != 0 {
		t.Errorf("one seed: %+v", b)
	}
	cs[1].Iter = []int{0, 4}
	if _, err := StabilityBands(cs); err == nil || !strings.Contains(err.Error(), "seed 2") {
		t.Errorf("seeds with different points: %v", err)
	}
}

func TestAblateRefusesStability(t *testing.T) {
	e := must(sim.New(sim.Config{Tasks: 10, Seed: 1}))
	if _, err := Ablate(e, study.DefaultConfig(), AblateStability); err == nil || !strings.Contains(err.Error(), "RunStability") {
		t.Errorf("Ablate stability: %v", err)
	}
	c := stabilityConfig(2, 1)
	c.EvalEvery = -1
	if _, err := RunStability(e, c); err == nil {
		t.Error("a negative period: no error")
	}
	c = stabilityConfig(2, 1)
	c.Train.RewardNoise = "student-t:0:1"
	if _, err := RunStability(e, c); err == nil || !strings.Contains(err.Error(), "reward noise") {
		t.Errorf("a bad noise: %v", err)
	}
}
