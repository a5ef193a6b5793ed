package trainer

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mpdf/mpdf/nn"
)

// SFT is the supervised stage of design §4: it clones labelled decisions into
// a policy by minibatch Adam on the mean cross-entropy −log π(a|x), rows
// shuffled by seed. It has its own optimiser state; the policy it leaves is
// what RL then freezes as its reference. Pass it the data whole (Epoch per
// epoch) or chunk by chunk (Epoch per chunk), as memory allows.
type SFT struct {
	backend Backend
	policy  *nn.MLP[float32]
	cfg     SFTConfig
	opt     *nn.Adam[float32]
	grad    []float32
	rng     *rand.Rand
	bx      []float32
	ba      []uint8
	logits  []float32 // Agreement's
	// Steps counts the Adam updates.
	Steps int
}

// NewSFT trains policy in place with cfg; adam gives β1, β2, ε (the rate is
// cfg.LR).
func NewSFT(backend Backend, policy *nn.MLP[float32], cfg SFTConfig, adam nn.AdamConfig, seed uint64) (*SFT, error) {
	if cfg.BatchSize <= 0 {
		return nil, fmt.Errorf("trainer: sft: batch size %d, want > 0", cfg.BatchSize)
	}
	adam.LR = cfg.LR
	if err := adam.Validate(); err != nil {
		return nil, fmt.Errorf("trainer: sft: %w", err)
	}
	return &SFT{
		backend: backend, policy: policy, cfg: cfg,
		opt:  nn.NewAdam[float32](adam, len(policy.Params)),
		grad: make([]float32, len(policy.Params)),
		rng:  rand.New(rand.NewPCG(seed, 0x736674)), // "sft"
	}, nil
}

// Epoch makes one shuffled pass of minibatches over the rows x (B×F) with
// labels actions and returns their mean cross-entropy.
func (s *SFT) Epoch(x []float32, actions []uint8) (float64, error) {
	n := len(actions)
	f := s.policy.In()
	switch {
	case n == 0:
		return 0, fmt.Errorf("trainer: sft: no labelled decisions")
	case len(x) != n*f:
		return 0, fmt.Errorf("trainer: sft: %d feature values for %d rows of width %d", len(x), n, f)
	}
	if err := checkFeatures(x, f); err != nil {
		return 0, fmt.Errorf("trainer: sft: %w", err)
	}
	for i, a := range actions {
		if a >= nn.NumActions {
			return 0, fmt.Errorf("trainer: sft: row %d: action %d outside [0, %d)", i, a, nn.NumActions)
		}
	}
	perm := s.rng.Perm(n)
	sum := 0.0
	for lo := 0; lo < n; lo += s.cfg.BatchSize {
		idx := perm[lo:min(n, lo+s.cfg.BatchSize)]
		s.bx, s.ba = s.bx[:0], s.ba[:0]
		for _, r := range idx {
			s.bx = append(s.bx, x[r*f:(r+1)*f]...)
			s.ba = append(s.ba, actions[r])
		}
		loss, err := s.backend.SFTLossAndGrad(s.grad, s.policy, s.bx, s.ba)
		if err != nil {
			return 0, fmt.Errorf("trainer: sft: %w", err)
		}
		if math.IsNaN(loss) || math.IsInf(loss, 0) || !finite32(s.grad) {
			return 0, &NonFiniteError{What: "sft loss or gradient", Index: -1, Value: loss}
		}
		s.opt.Update(s.policy.Params, s.grad, s.cfg.LR)
		sum += loss * float64(len(idx))
		s.Steps++
	}
	return sum / float64(n), nil
}

func finite32(v []float32) bool {
	for _, x := range v {
		if f := float64(x); math.IsNaN(f) || math.IsInf(f, 0) {
			return false
		}
	}
	return true
}

// Agreement is the share of rows whose most probable action under m is the
// label: how well the supervised stage cloned its teacher. The rows go
// through nn.LogitsRows in blocks (the logits of Logits, bit for bit).
func Agreement(m *nn.MLP[float32], x []float32, actions []uint8) float64 {
	const block = 256
	f := m.In()
	logits := make([]float32, block*nn.NumActions)
	var buf []float64
	hit := 0
	for i0 := 0; i0 < len(actions); i0 += block {
		n := min(block, len(actions)-i0)
		buf = m.LogitsRows(logits[:n*nn.NumActions], x[i0*f:(i0+n)*f], buf)
		hit += hits(logits, actions[i0:i0+n])
	}
	return float64(hit) / float64(max(1, len(actions)))
}

// hits counts the rows whose most probable action under logits (row-major,
// nn.NumActions a row; lowest index on ties) is the row's label.
func hits(logits []float32, actions []uint8) int {
	hit := 0
	for i, a := range actions {
		z := logits[i*nn.NumActions : (i+1)*nn.NumActions]
		best := 0
		for k := 1; k < nn.NumActions; k++ {
			if z[k] > z[best] {
				best = k
			}
		}
		if uint8(best) == a {
			hit++
		}
	}
	return hit
}

// agreementRows bounds the logits SFT.Agreement holds at once.
const agreementRows = 8192

// Agreement counts the rows of x (B×F) whose most probable action under the
// policy is the label (lowest index on ties). The logits come from the
// backend's batched forward pass when it is a Forwarder (the kernels: a
// chunk of rows costs what a few row-by-row passes did), else from the
// package's Agreement.
func (s *SFT) Agreement(x []float32, actions []uint8) (int, error) {
	f := s.policy.In()
	if len(x) != len(actions)*f {
		return 0, fmt.Errorf("trainer: sft agreement: %d feature values for %d rows of width %d", len(x), len(actions), f)
	}
	fw, ok := s.backend.(Forwarder)
	if !ok {
		return int(math.Round(Agreement(s.policy, x, actions) * float64(len(actions)))), nil
	}
	hit := 0
	for lo := 0; lo < len(actions); lo += agreementRows {
		hi := min(len(actions), lo+agreementRows)
		s.logits = grow(s.logits, (hi-lo)*nn.NumActions)
		if err := fw.Forward(s.logits, s.policy, x[lo*f:hi*f]); err != nil {
			return 0, fmt.Errorf("trainer: sft agreement: %w", err)
		}
		hit += hits(s.logits, actions[lo:hi])
	}
	return hit, nil
}
