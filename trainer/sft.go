package trainer

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mpdf/mpdf/nn"
)

// SFTResult summarises the supervised stage.
type SFTResult struct {
	Epochs   int       `json:"epochs"`
	Steps    int       `json:"steps"`
	Loss     []float64 `json:"loss"`     // mean cross-entropy per epoch
	Accuracy float64   `json:"accuracy"` // share of rows whose greedy action matches the label, at the end
}

// SFT clones labelled decisions into policy (SPEC §4's supervised stage):
// minibatch Adam on the mean cross-entropy −log π(a|x), rows shuffled by
// seed. x is B×F row-major. It has its own optimiser state; the returned
// policy is what RL then freezes as its reference.
func SFT(backend Backend, policy *nn.MLP[float32], x []float32, actions []uint8, cfg SFTConfig, adam nn.AdamConfig, seed uint64, onEpoch func(epoch int, loss float64)) (SFTResult, error) {
	n := len(actions)
	f := policy.In()
	switch {
	case n == 0:
		return SFTResult{}, fmt.Errorf("trainer: sft: no labelled decisions")
	case len(x) != n*f:
		return SFTResult{}, fmt.Errorf("trainer: sft: %d feature values for %d rows of width %d", len(x), n, f)
	case cfg.BatchSize <= 0:
		return SFTResult{}, fmt.Errorf("trainer: sft: batch size %d, want > 0", cfg.BatchSize)
	}
	if err := checkFeatures(x, f); err != nil {
		return SFTResult{}, fmt.Errorf("trainer: sft: %w", err)
	}
	for i, a := range actions {
		if a >= nn.NumActions {
			return SFTResult{}, fmt.Errorf("trainer: sft: row %d: action %d outside [0, %d)", i, a, nn.NumActions)
		}
	}
	adam.LR = cfg.LR
	opt := nn.NewAdam[float32](adam, len(policy.Params))
	grad := make([]float32, len(policy.Params))
	rng := rand.New(rand.NewPCG(seed, 0x736674)) // "sft"
	bx := make([]float32, 0, cfg.BatchSize*f)
	ba := make([]uint8, 0, cfg.BatchSize)
	res := SFTResult{Epochs: cfg.Epochs}
	for ep := 0; ep < cfg.Epochs; ep++ {
		perm := rng.Perm(n)
		sum, rows := 0.0, 0
		for lo := 0; lo < n; lo += cfg.BatchSize {
			idx := perm[lo:min(n, lo+cfg.BatchSize)]
			bx, ba = bx[:0], ba[:0]
			for _, r := range idx {
				bx = append(bx, x[r*f:(r+1)*f]...)
				ba = append(ba, actions[r])
			}
			loss, err := backend.SFTLossAndGrad(grad, policy, bx, ba)
			if err != nil {
				return res, fmt.Errorf("trainer: sft: epoch %d: %w", ep, err)
			}
			if math.IsNaN(loss) || math.IsInf(loss, 0) || !finite32(grad) {
				return res, &NonFiniteError{What: "sft loss or gradient", Index: -1, Value: loss}
			}
			opt.Update(policy.Params, grad, cfg.LR)
			sum += loss * float64(len(idx))
			rows += len(idx)
			res.Steps++
		}
		res.Loss = append(res.Loss, sum/float64(rows))
		if onEpoch != nil {
			onEpoch(ep, sum/float64(rows))
		}
	}
	res.Accuracy = greedyAccuracy(policy, x, actions)
	return res, nil
}

func finite32(v []float32) bool {
	for _, x := range v {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

// greedyAccuracy is the share of rows whose most probable action is the label.
func greedyAccuracy(m *nn.MLP[float32], x []float32, actions []uint8) float64 {
	f := m.In()
	logits := make([]float32, nn.NumActions)
	hit := 0
	for i, a := range actions {
		m.Logits(logits, x[i*f:(i+1)*f])
		best := 0
		for k := 1; k < nn.NumActions; k++ {
			if logits[k] > logits[best] {
				best = k
			}
		}
		if uint8(best) == a {
			hit++
		}
	}
	return float64(hit) / float64(len(actions))
}
