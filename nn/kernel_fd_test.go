package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestGradientsFiniteDifference checks the float64 kernels' gradients
// against central differences of the loss they report, on a random subset
// of parameters, for the SoftRankPO and the supervised loss. The step
// h = 1e-6 leaves a truncation error near 1e-12 and a rounding error near
// 1e-10, far below the tolerance; the batch's ratios are away from the
// clip and clamp kinks by far more than h moves them.
func TestGradientsFiniteDifference(t *testing.T) {
	for _, k := range kernelSetsFor[float64]() {
		for _, act := range []Activation{Tanh, ReLU} {
			t.Run(fmt.Sprintf("%s/%v", k.name, act), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(31, uint64(act)))
				sizes := []int{6, 9, 7, NumActions}
				m := randModel[float64](rng, sizes, act)
				b := randBatch(rng, m, 50)
				// Rows clamped at ℓ = 20 with A < 0 add e²⁰·|A| to the loss, which
				// would drown the differences; give them A > 0 (the clip then
				// bounds the term, and its gradient is still zero).
				logits := make([]float64, 50*NumActions)
				ForwardRef(logits, m, b.X)
				lp := make([]float64, NumActions)
				for r := range 50 {
					LogSoftmaxTo(lp, logits[r*NumActions:(r+1)*NumActions])
					if lp[b.Actions[r]]-b.BehLogp[r] > 20 {
						b.Adv[r] = math.Abs(b.Adv[r]) + 0.5
					}
				}
				cfg := LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.1, Entropy: 0.02}
				ws, err := newWorkspace(sizes, act, 50, 2, k)
				if err != nil {
					t.Fatal(err)
				}
				defer ws.Close()
				grad := make([]float64, len(m.Params))
				scratch := make([]float64, len(m.Params))
				losses := map[string]func() float64{
					"softrankpo": func() float64 { return ws.LossAndGrad(scratch, m, b, cfg).Loss },
					"sft":        func() float64 { return ws.SFTLossAndGrad(scratch, m, b.X, b.Actions) },
				}
				for name, loss := range losses {
					if name == "softrankpo" {
						ws.LossAndGrad(grad, m, b, cfg)
					} else {
						ws.SFTLossAndGrad(grad, m, b.X, b.Actions)
					}
					const h = 1e-6
					for range 60 {
						i := rng.IntN(len(m.Params))
						p := m.Params[i]
						m.Params[i] = p + h
						up := loss()
						m.Params[i] = p - h
						down := loss()
						m.Params[i] = p
						fd := (up - down) / (2 * h)
						if !(math.Abs(fd-grad[i]) <= 1e-7+1e-6*math.Abs(grad[i])) {
							t.Errorf("%s: ∂loss/∂θ[%d] = %.10g, finite difference %.10g", name, i, grad[i], fd)
						}
					}
				}
			})
		}
	}
}
