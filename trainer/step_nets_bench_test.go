package trainer

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// BenchmarkStepNets is one update step on the kernel backend with the
// rows of a batch spread over 1 (shared) or 3 networks (a network per
// slot of a 3-agent team): the price of per-network slices through the
// fused step. The 1-network case is the shared policy's path exactly.
func BenchmarkStepNets(b *testing.B) {
	const F = 26
	for _, rows := range []int{512, 4096} {
		for _, k := range []int{1, 3} {
			b.Run(fmt.Sprintf("batch=%d/nets=%d", rows, k), func(b *testing.B) {
				pol := testMLP(b, []int{F, 64, 64, 3}, nn.Tanh, 1)
				be, err := NewKernelBackend(pol.Sizes, pol.Act, nn.DefaultLoss(), 1)
				if err != nil {
					b.Fatal(err)
				}
				defer be.Close()
				s, err := NewStepper(be, pol, pol, DefaultStepConfig())
				if err != nil {
					b.Fatal(err)
				}
				for range k - 1 {
					if _, err := s.AddNet(); err != nil {
						b.Fatal(err)
					}
				}
				rng := rand.New(rand.NewPCG(3, 3))
				sm := &Samples{Features: make([]float32, rows*F), Actions: make([]uint8, rows),
					Rewards: make([]float64, rows), Groups: make([]string, rows), Nets: make([]int32, rows)}
				for i := range sm.Features {
					sm.Features[i] = float32(rng.NormFloat64())
				}
				for i := range rows {
					sm.Actions[i] = uint8(rng.IntN(3))
					sm.Rewards[i] = float64(rng.IntN(5) - 2)
					sm.Groups[i] = fmt.Sprintf("task-%d", i/12)
					sm.Nets[i] = int32(i % k) // agent i%3 of its round
				}
				sm.LogProb = make([]float64, rows)
				if err := s.NetsLogProbsTo(sm.LogProb, sm.Features, sm.Actions, sm.Nets); err != nil {
					b.Fatal(err)
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
