package trainer

// Bad input is an error, never NaN: an empty group, a dst of another
// length, a NaN or infinite reward, τ not finite and > 0, and (drgrpo,
// rloo) advantages that overflow.

import (
	"fmt"
	"math"
	"strings"
)

// Estimator turns the rewards of one group into advantages (design §3).
// Advantages writes len(rewards) advantages into dst. It returns an error for
// an empty group, a dst of another length, or a non-finite reward; it never
// writes NaN or ±Inf. The estimators of this package hold no mutable state and
// are safe for concurrent use.
type Estimator interface {
	Name() string
	Advantages(dst, rewards []float64) error
}

// Estimator names accepted by NewEstimator.
const (
	SoftRankName  = "softrank"
	GRPOName      = "grpo"
	DrGRPOName    = "drgrpo"
	RLOOName      = "rloo"
	ReinforceName = "reinforce"
)

// EstimatorNames lists the names NewEstimator accepts, SoftRankPO first.
func EstimatorNames() []string {
	return []string{SoftRankName, GRPOName, DrGRPOName, RLOOName, ReinforceName}
}

// NewEstimator returns the estimator called name ("" means softrank).
// tau is SoftRankPO's temperature: 0 means DefaultTau, otherwise it must be
// finite and > 0. The other estimators have no temperature and ignore tau.
func NewEstimator(name string, tau float64) (Estimator, error) {
	switch strings.ToLower(name) {
	case SoftRankName, "":
		if tau == 0 {
			tau = DefaultTau
		}
		if err := checkTau(tau); err != nil {
			return nil, err
		}
		return SoftRankEstimator{Tau: tau}, nil
	case GRPOName:
		return GRPO{}, nil
	case DrGRPOName:
		return DrGRPO{}, nil
	case RLOOName:
		return RLOO{}, nil
	case ReinforceName:
		return Reinforce{}, nil
	}
	return nil, fmt.Errorf("trainer: unknown advantage estimator %q (want one of %s)", name, strings.Join(EstimatorNames(), ", "))
}

func checkTau(tau float64) error {
	if !(tau > 0) || math.IsInf(tau, 0) {
		return fmt.Errorf("trainer: softrank: tau %v, want a finite value > 0", tau)
	}
	return nil
}

// checkGroup validates the arguments every estimator shares.
func checkGroup(name string, dst, rewards []float64) error {
	if len(rewards) == 0 {
		return fmt.Errorf("trainer: %s: empty group", name)
	}
	if len(dst) != len(rewards) {
		return fmt.Errorf("trainer: %s: len(dst)=%d for %d rewards", name, len(dst), len(rewards))
	}
	for i, r := range rewards {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("trainer: %s: reward[%d] is %v", name, i, r)
		}
	}
	return nil
}

// checkOut reports an advantage that overflowed (rewards near ±MaxFloat64),
// so that no estimator ever hands out a non-finite value.
func checkOut(name string, dst []float64) error {
	for i, a := range dst {
		if math.IsNaN(a) || math.IsInf(a, 0) {
			clear(dst)
			return fmt.Errorf("trainer: %s: advantage[%d] overflows (rewards too large)", name, i)
		}
	}
	return nil
}
