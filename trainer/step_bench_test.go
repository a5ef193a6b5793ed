package trainer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// zeroBackend returns a zero gradient, so BenchmarkStepOverhead measures what
// Step adds around a backend: validation, advantages, the reference and
// behaviour log-probs, the checks, the clip and Adam.
type zeroBackend struct{}

func (zeroBackend) LossAndGrad(grad []float32, _ *nn.MLP[float32], _ *nn.Batch[float32]) (nn.LossStats, error) {
	clear(grad)
	return nn.LossStats{}, nil
}

func (zeroBackend) SFTLossAndGrad(grad []float32, _ *nn.MLP[float32], _ []float32, _ []uint8) (float64, error) {
	clear(grad)
	return 0, nil
}

// zeroStepper is a Stepper on zeroBackend for the network 32 → 64 → 64 →
// 3 (gradient-norm clip at 1), and rows random samples for it: groups of
// 16 rows with integer rewards in [−2, 2], no log-probabilities.
func zeroStepper(b *testing.B, rows int) (*Stepper, *Samples) {
	pol := testMLP(b, []int{32, 64, 64, 3}, nn.Tanh, 1)
	cfg := DefaultStepConfig()
	cfg.MaxGradNorm = 1
	s, err := NewStepper(zeroBackend{}, pol, pol, cfg)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(3, 3))
	sm := &Samples{Features: make([]float32, rows*32), Actions: make([]uint8, rows),
		Rewards: make([]float64, rows), Groups: make([]string, rows)}
	for i := range sm.Features {
		sm.Features[i] = float32(rng.NormFloat64())
	}
	for i := range rows {
		sm.Actions[i] = uint8(rng.IntN(3))
		sm.Rewards[i] = float64(rng.IntN(5) - 2)
		sm.Groups[i] = fmt.Sprintf("task-%d", i/16)
	}
	return s, sm
}

func BenchmarkStepOverhead(b *testing.B) {
	for _, rows := range []int{256, 4096} {
		for _, logprob := range []string{"given", "absent"} {
			b.Run(fmt.Sprintf("impl=plain/batch=%d/logprob=%s", rows, logprob), func(b *testing.B) {
				s, sm := zeroStepper(b, rows)
				if logprob == "given" {
					sm.LogProb = make([]float64, rows)
					if err := s.PolicyLogProbsTo(sm.LogProb, sm.Features, sm.Actions); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Step(sm, 1e-4); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
			})
		}
	}
}

// BenchmarkStepParts times the parts of Stepper.Step around the backend on
// the root benchmark's impl=stepper batches (width 32, groups of 16 rows
// with integer rewards, advantages and both log-probabilities given),
// each alone, so that a change to one shows:
//
//	go test -run XXX -bench StepParts -count 6 ./trainer | benchstat -col /batch -
//
// step is the whole Step on zeroBackend (with the clip and Adam); check is
// Samples.Check; groups finds the runs of the group keys (buildRuns);
// groupstats the reward_std metrics; pass batchMetrics's pass over the rows;
// fill the rest of the backend's batch; gradnorm and clip the global norm
// and the clip's multiply; adam the update.
func BenchmarkStepParts(b *testing.B) {
	for _, rows := range []int{512, 4096} {
		s, sm := zeroStepper(b, rows)
		sm.LogProb, sm.RefLogProb, sm.Adv = make([]float64, rows), make([]float32, rows*nn.NumActions), make([]float64, rows)
		if err := s.PolicyLogProbsTo(sm.LogProb, sm.Features, sm.Actions); err != nil {
			b.Fatal(err)
		}
		if err := s.logProbsTo(sm.RefLogProb, s.ref, sm.Features); err != nil {
			b.Fatal(err)
		}
		if err := GroupAdvantages(sm.Adv, sm.Rewards, sm.Groups, s.est); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Step(sm, 1e-4); err != nil {
			b.Fatal(err)
		}
		var mt Metrics
		for _, p := range []struct {
			name string
			f    func()
		}{
			{"step", func() { s.Step(sm, 1e-4) }},
			{"check", func() { sm.Check(32) }},
			{"groups", func() { s.groups.buildRuns(sm.Groups) }},
			{"groupstats", func() { s.groups.groupStats(sm.Rewards) }},
			{"pass", func() { s.batchMetrics(&mt, sm, sm.Adv, &groupSummary{}) }},
			{"fill", func() { s.fillBatch(sm, false) }},
			{"gradnorm", func() { nn.GradNorm(s.grad) }},
			{"clip", func() { nn.Scale(s.grad, 0.999) }},
			{"adam", func() { s.adam.UpdateFast(s.policy.Params, s.grad, 1e-9) }},
		} {
			b.Run(fmt.Sprintf("part=%s/batch=%d", p.name, rows), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					p.f()
				}
			})
		}
	}
}
