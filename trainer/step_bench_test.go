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

func BenchmarkStepOverhead(b *testing.B) {
	for _, rows := range []int{256, 4096} {
		for _, logprob := range []string{"given", "absent"} {
			b.Run(fmt.Sprintf("impl=plain/batch=%d/logprob=%s", rows, logprob), func(b *testing.B) {
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
