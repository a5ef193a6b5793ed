package nn

import (
	"fmt"
	"math"
	"unsafe"
)

// NumActions is the width of the policy's output, one logit per action:
// the one count of the action set, whose names live in metapolicy (which
// asserts that its list has this length). Kernels written for exactly three
// actions assert NumActions == 3 where they are, so raising it fails to
// build in those places (docs/architecture.md, "Adding an action").
const NumActions = 3

// LossConfig holds the coefficients of the SoftRankPO loss of design §4.
type LossConfig struct {
	EpsLow  float64 `json:"eps_low"`  // ratio clip below: 1 − EpsLow
	EpsHigh float64 `json:"eps_high"` // ratio clip above: 1 + EpsHigh
	Beta    float64 `json:"beta"`     // KL penalty to the reference policy
	Entropy float64 `json:"entropy"`  // c_H, entropy bonus
	// Kind is the loss form: "" (LossClip, the default) or LossRankMatch,
	// for which Beta is the implicit reward's scale and EpsLow, EpsHigh
	// are unused. Omitted when empty, so clip configurations read and
	// write as before it existed.
	Kind string `json:"kind,omitempty"`
}

// DefaultLoss returns ε_low = ε_high = 0.2, β = 0.05, c_H = 0.
func DefaultLoss() LossConfig { return LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: 0.05} }

// Validate reports a coefficient outside its domain.
func (c LossConfig) Validate() error {
	ok := func(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }
	switch {
	case !ok(c.EpsLow) || c.EpsLow >= 1:
		return fmt.Errorf("nn: loss: eps_low %v, want [0, 1)", c.EpsLow)
	case !ok(c.EpsHigh):
		return fmt.Errorf("nn: loss: eps_high %v, want a finite value ≥ 0", c.EpsHigh)
	case !ok(c.Beta):
		return fmt.Errorf("nn: loss: beta %v, want a finite value ≥ 0", c.Beta)
	case !ok(c.Entropy):
		return fmt.Errorf("nn: loss: entropy %v, want a finite value ≥ 0", c.Entropy)
	case c.Kind != "" && c.Kind != LossClip && c.Kind != LossRankMatch:
		return fmt.Errorf("nn: loss: kind %q, want %s or %s", c.Kind, LossClip, LossRankMatch)
	case c.Kind == LossRankMatch && !(c.Beta > 0):
		return fmt.Errorf("nn: loss: beta %v, want > 0 for %s (the implicit reward is β·log π/π_ref)", c.Beta, LossRankMatch)
	}
	return nil
}

// Batch is one minibatch of training decisions, row-major.
//
//	X          B×F features
//	Actions    B actions in [0, NumActions)
//	Adv        B advantages
//	BehLogp    B behaviour log-probabilities log μ(a|x)
//	RefLogp    B×NumActions log π_ref(·|x) of the frozen reference policy
//	Group      nil, or B group indices in [0, B): rows with equal indices
//	           are one group, which the rank-match loss centres within
//	           (required by it, unread by the clip loss)
//	Coef       nil, or B given rank-match coefficients: row i's
//	           ∂(B'·loss)/∂log π(a_i|x_i) of a larger batch of B' rows this
//	           one is a slice of (RankMatchCoef over it), whose groups span
//	           several networks (trainer's decoupled agents). The
//	           rank-match loss then reads neither Group nor Adv, and its
//	           PolicyLoss is 0: the squared errors are the caller's. The
//	           gradient is the slice's own (divided by B), which the caller
//	           scales by B/B'. Unread by the clip loss.
//
// The reference log-probabilities are an input, not a network: π_ref is
// frozen, so they are computed once per batch by whoever builds it.
type Batch[T Float] struct {
	X       []T
	Actions []uint8
	Adv     []T
	BehLogp []T
	RefLogp []T
	Group   []int32
	Coef    []float64
}

// Len is the number of rows B.
func (b *Batch[T]) Len() int { return len(b.Actions) }

// Check reports a batch whose slices disagree with B rows of width features,
// an action outside the three, or a non-finite value. Call it once at a
// boundary; kernels trust what passed.
func (b *Batch[T]) Check(features int) error {
	if err := b.CheckShape(features); err != nil {
		return err
	}
	for _, c := range [...]struct {
		name string
		s    []T
	}{{"features", b.X}, {"advantage", b.Adv}, {"behaviour logprob", b.BehLogp}, {"reference logprob", b.RefLogp}} {
		if i := FirstNonFinite(c.s); i >= 0 {
			return fmt.Errorf("nn: batch: %s[%d] is %v", c.name, i, c.s[i])
		}
	}
	if i := FirstNonFinite(b.Coef); i >= 0 {
		return fmt.Errorf("nn: batch: rank-match coefficient[%d] is %v", i, b.Coef[i])
	}
	return nil
}

// CheckShape is the part of Check a kernel needs to stay inside the slices:
// the lengths and the actions, not the values.
func (b *Batch[T]) CheckShape(features int) error {
	n := len(b.Actions)
	if n == 0 {
		return fmt.Errorf("nn: empty batch")
	}
	switch {
	case len(b.X) != n*features:
		return fmt.Errorf("nn: batch: %d feature values for %d rows of width %d", len(b.X), n, features)
	case len(b.Adv) != n:
		return fmt.Errorf("nn: batch: %d advantages for %d rows", len(b.Adv), n)
	case len(b.BehLogp) != n:
		return fmt.Errorf("nn: batch: %d behaviour log-probabilities for %d rows", len(b.BehLogp), n)
	case len(b.RefLogp) != n*NumActions:
		return fmt.Errorf("nn: batch: %d reference log-probabilities for %d rows of %d actions", len(b.RefLogp), n, NumActions)
	}
	for i, a := range b.Actions {
		if a >= NumActions {
			return fmt.Errorf("nn: batch: row %d: action %d outside [0, %d)", i, a, NumActions)
		}
	}
	if b.Coef != nil && len(b.Coef) != n {
		return fmt.Errorf("nn: batch: %d rank-match coefficients for %d rows (nil when absent)", len(b.Coef), n)
	}
	if b.Group != nil && len(b.Group) != n {
		return fmt.Errorf("nn: batch: %d group indices for %d rows (nil when absent)", len(b.Group), n)
	}
	for i, g := range b.Group {
		if g < 0 || int(g) >= n {
			return fmt.Errorf("nn: batch: row %d: group index %d outside [0, %d)", i, g, n)
		}
	}
	return nil
}

// FirstNonFinite returns the index of the first NaN or ±Inf in s, or −1.
func FirstNonFinite[T Float](s []T) int {
	if unsafe.Sizeof(s[:1][0]) == 4 && len(s) >= 32 && allFinite32(asF32(s)) {
		return -1
	}
	// x − x is 0 for a finite x and NaN for NaN and ±Inf: one subtraction
	// and one compare an element. Blocks of 8 take one branch.
	i := 0
	for ; i+8 <= len(s); i += 8 {
		b := s[i : i+8 : i+8]
		if (b[0]-b[0])+(b[1]-b[1])+(b[2]-b[2])+(b[3]-b[3])+(b[4]-b[4])+(b[5]-b[5])+(b[6]-b[6])+(b[7]-b[7]) != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if s[i]-s[i] != 0 {
			return i
		}
	}
	return -1
}

// LossStats are the batch means of the loss and its parts, and the share of
// rows whose ratio was clipped on each side (TRL's clip_ratio/low|high: the
// clip was active and bounded the objective).
type LossStats struct {
	Loss       float64 `json:"loss"`
	PolicyLoss float64 `json:"policy_loss"`
	KL         float64 `json:"kl"`
	Entropy    float64 `json:"entropy"`
	ClipLow    float64 `json:"clip_ratio/low"`
	ClipHigh   float64 `json:"clip_ratio/high"`
}
