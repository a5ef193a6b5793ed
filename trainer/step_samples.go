package trainer

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/nn"
)

// Samples is one batch of training decisions for Step, row-major:
//
//	Features  B×F features, F the policy's input width
//	Actions   B actions in [0, 3): persist, refine, concede
//	Rewards   B finite rewards
//	Groups    B group keys; rows with equal keys compete (design §3)
//	LogProb   nil, or B behaviour log-probabilities log μ(a|x); NaN marks
//	          an absent one, replaced by the current policy's
//	RefLogProb nil, or B×3 log π_ref(·|x) of the Stepper's reference,
//	          computed once per rollout batch (RL.Update) instead of per step
//	Adv       nil, or B finite advantages of the rewards by the Stepper's
//	          estimator over the groups of a batch these rows' groups are
//	          whole in, computed once per rollout batch (RL.Update) instead
//	          of per step
//	Nets      nil, or B network indices (a decoupled policy's)
//
// Step reads Samples and never modifies them. It reads them only during
// the call, so the caller may reuse the buffers once Step returns; the
// Stepper does hold references to Features, Actions and RefLogProb until
// its next step (its backend batch points into them), which keeps them
// from being collected until then.
type Samples struct {
	Features []float32
	Actions  []uint8
	Rewards  []float64
	Groups   []string
	LogProb  []float64

	RefLogProb []float32
	Adv        []float64

	// Nets is nil, or B indices of the network each row trains and is
	// read by (Stepper.AddNet; design §4, decoupled agents); nil means
	// network 0, the only one of a shared policy.
	Nets []int32

	// Counter is nil, or B×3 counterfactual rewards: row i's reward had
	// it taken persist, refine, concede, the other agents held fixed
	// (Config.Credit); RL.Update takes the advantages from them.
	Counter []float64
}

// Len is the number of rows B.
func (s *Samples) Len() int { return len(s.Actions) }

// logProbSlack tolerates log-probabilities a rounding above 0.
const logProbSlack = 1e-6

// Check reports samples whose slices disagree with B rows of width
// features, an action outside the three, a non-finite feature or reward, or
// a behaviour log-probability that is ±Inf or above 0. Errors name the row.
func (s *Samples) Check(features int) error {
	if err := s.checkShape(features); err != nil {
		return err
	}
	if !rowsValid(s) {
		return s.rowError()
	}
	return checkFeatures(s.Features, features)
}

// checkShape is Check's first part: the lengths.
func (s *Samples) checkShape(features int) error {
	n := s.Len()
	switch {
	case n == 0:
		return fmt.Errorf("trainer: samples: empty batch")
	case features <= 0 || len(s.Features) != n*features:
		return fmt.Errorf("trainer: samples: %d feature values for %d rows of width %d", len(s.Features), n, features)
	case len(s.Rewards) != n:
		return fmt.Errorf("trainer: samples: %d rewards for %d rows", len(s.Rewards), n)
	case len(s.Groups) != n:
		return fmt.Errorf("trainer: samples: %d group keys for %d rows", len(s.Groups), n)
	case s.RefLogProb != nil && len(s.RefLogProb) != n*nn.NumActions:
		return fmt.Errorf("trainer: samples: %d reference log-probabilities for %d rows (nil when absent)", len(s.RefLogProb), n)
	case s.Adv != nil && len(s.Adv) != n:
		return fmt.Errorf("trainer: samples: %d advantages for %d rows (nil when absent)", len(s.Adv), n)
	case s.LogProb != nil && len(s.LogProb) != n:
		return fmt.Errorf("trainer: samples: %d log-probabilities for %d rows (nil when absent)", len(s.LogProb), n)
	case s.Counter != nil && len(s.Counter) != n*nn.NumActions:
		return fmt.Errorf("trainer: samples: %d counterfactual rewards for %d rows (nil when absent)", len(s.Counter), n)
	}
	for i, v := range s.Counter {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("trainer: samples: row %d: counterfactual reward %v", i/nn.NumActions, v)
		}
	}
	return nil
}

// rowsValid reports whether every row's action, reward, advantage and
// behaviour log-probability passes Check, by maxima and flags with no branch
// an element (the four loops of rowError, a branch each, were 2 % of a
// Step); rowError finds the row to name when it does not. The lengths have
// been checked.
func rowsValid(s *Samples) bool {
	const expMask = 0x7ff << 52 // all ones: NaN or ±Inf
	var amax uint8
	var rexp, aexp uint64
	rw := s.Rewards[:len(s.Actions)]
	for i, a := range s.Actions {
		amax = max(amax, a)
		rexp = max(rexp, math.Float64bits(rw[i])&expMask)
	}
	for _, a := range s.Adv {
		aexp = max(aexp, math.Float64bits(a)&expMask)
	}
	// NaN (absent) passes: −Inf is below −MaxFloat64, +Inf above the slack.
	bad := 0
	for _, lp := range s.LogProb {
		bad |= b2i(lp > logProbSlack) | b2i(lp < -math.MaxFloat64)
	}
	return amax < nn.NumActions && rexp != expMask && aexp != expMask && bad == 0
}

// b2i is 1 for true; the compiler makes it a SETcc, not a branch.
func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// rowError is the error of the first row (in Check's order: actions,
// rewards, advantages, log-probabilities) rowsValid rejects, nil when none.
func (s *Samples) rowError() error {
	for i, a := range s.Actions {
		if a >= nn.NumActions {
			return fmt.Errorf("trainer: samples: row %d: action %d outside [0, %d)", i, a, nn.NumActions)
		}
	}
	for i, r := range s.Rewards {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("trainer: samples: row %d: reward is %v", i, r)
		}
	}
	for i, a := range s.Adv {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			return fmt.Errorf("trainer: samples: row %d: advantage is %v", i, a)
		}
	}
	for i, lp := range s.LogProb {
		if math.IsInf(lp, 0) || lp > logProbSlack {
			return fmt.Errorf("trainer: samples: row %d: logprob %v, want a finite value ≤ 0 (NaN when absent)", i, lp)
		}
	}
	return nil
}

func checkFeatures(x []float32, width int) error {
	if k := nn.FirstNonFinite(x); k >= 0 {
		return fmt.Errorf("trainer: samples: row %d: feature %d is %v", k/width, k%width, x[k])
	}
	return nil
}
