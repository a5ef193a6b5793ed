package run

import (
	"context"
	"encoding/json"
	"math"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer"
)

// A short online run on the simulator with the rank-matching loss trains
// on both backends: the metrics are finite, the policy moved away from its
// reference, the checkpoint's config says rank-match, and the run resumes.
// How much the reward moves is measured (docs/results.md), not asserted.
func TestRunRankMatch(t *testing.T) {
	for _, backend := range []string{"kernel", "gorgonia"} {
		t.Run(backend, func(t *testing.T) {
			dir := t.TempDir()
			cfg := simConfig(t)
			cfg.Dir = dir
			cfg.Train.Backend = backend
			cfg.Train.Loss.Kind = nn.LossRankMatch
			var iters []Iteration
			res, err := Train(context.Background(), cfg, Hooks{Iteration: func(it Iteration) { iters = append(iters, it) }})
			if err != nil {
				t.Fatal(err)
			}
			if res.Steps == 0 || len(iters) != cfg.Train.RL.Iterations {
				t.Fatalf("%d steps, %d iterations: want some of each", res.Steps, len(iters))
			}
			for _, it := range iters {
				m := it.Metrics
				for _, v := range []float64{m.Loss, m.PolicyLoss, m.KL, m.Entropy, m.GradNorm, it.TeamAccuracy} {
					if math.IsNaN(v) || math.IsInf(v, 0) {
						t.Fatalf("iteration %d: non-finite metric in %+v", it.Iter, m)
					}
				}
				if m.ClipLow != 0 || m.ClipHigh != 0 {
					t.Errorf("iteration %d: clip ratios %v/%v under rank-match", it.Iter, m.ClipLow, m.ClipHigh)
				}
			}
			rs, err := Latest(dir)
			if err != nil {
				t.Fatal(err)
			}
			ck := rs.Checkpoint
			var stored trainer.Config
			if err := json.Unmarshal(ck.Header.Train, &stored); err != nil {
				t.Fatal(err)
			}
			if stored.Loss.Kind != nn.LossRankMatch {
				t.Errorf("checkpoint config loss kind %q, want %q", stored.Loss.Kind, nn.LossRankMatch)
			}
			if ck.Reference == nil || slices.Equal(ck.Policy.Params, ck.Reference.Params) {
				t.Error("the policy did not move from its reference")
			}
			cfg.Resume, cfg.Train.RL.Iterations = rs, cfg.Train.RL.Iterations+1
			more, err := Train(context.Background(), cfg, Hooks{})
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			if more.Iterations != cfg.Train.RL.Iterations || more.Steps <= res.Steps {
				t.Errorf("resumed run: %d iterations, %d steps; want %d and more than %d", more.Iterations, more.Steps, cfg.Train.RL.Iterations, res.Steps)
			}
		})
	}
}
