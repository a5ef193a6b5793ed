package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

func TestZZDebug(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 0))
	sizes := []int{6, 9, 7, NumActions}
	m := randModel[float64](rng, sizes, Tanh)
	b := randBatch(rng, m, 50)
	cfg := LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.1, Entropy: 0.02}
	g := make([]float64, len(m.Params))
	for _, d := range []float64{0, 1e-6, 1e-5, 1e-4} {
		m.Params[40] += d
		st := LossAndGradRef(g, m, b, cfg)
		fmt.Printf("%.17g %.17g %.17g %.17g\n", st.Loss, st.PolicyLoss, st.KL, st.Entropy)
		m.Params[40] -= d
	}
}
