package trainer

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Reward transforms (Config.RewardTransform) are applied to each reward
// (or return) just before the estimator ranks a group: the ablation of
// robustness to the reward's scale (paper Fig. 5). Every one is strictly
// increasing, so no estimator's order of the decisions changes; what
// changes is the size and spacing of the advantages.
const (
	// TransformIdentity ("" also) leaves the rewards as they are.
	TransformIdentity = "identity"
	// TransformExp is r ↦ exp(r): monotone, not affine.
	TransformExp = "exp"
	// TransformScalePrefix starts "scale:K", r ↦ K·r for a finite K > 0.
	TransformScalePrefix = "scale:"
)

// ParseRewardTransform returns the function named by spec: "" or
// "identity", "exp", or "scale:K". f is nil for the identity.
func ParseRewardTransform(spec string) (f func(float64) float64, err error) {
	switch spec {
	case "", TransformIdentity:
		return nil, nil
	case TransformExp:
		return math.Exp, nil
	}
	if k, ok := strings.CutPrefix(spec, TransformScalePrefix); ok {
		v, err := strconv.ParseFloat(k, 64)
		if err == nil && v > 0 && !math.IsInf(v, 0) {
			return func(r float64) float64 { return v * r }, nil
		}
	}
	return nil, fmt.Errorf("trainer: reward transform %q, want identity, exp or scale:K (K a finite number > 0)", spec)
}

// Transformed is an Estimator that ranks f(r) instead of r.
type Transformed struct {
	Estimator
	Spec string // the transform's name, for Name
	F    func(float64) float64

	buf []float64
}

// Name is the inner estimator's name and the transform's.
func (t *Transformed) Name() string { return t.Estimator.Name() + "∘" + t.Spec }

// Advantages writes the inner estimator's advantages of f(rewards). A
// transformed reward that overflows is an error naming it. Not safe for
// concurrent use (it keeps a buffer), unlike the plain estimators.
func (t *Transformed) Advantages(dst, rewards []float64) error {
	t.buf = grow(t.buf, len(rewards))
	for i, r := range rewards {
		v := t.F(r)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("trainer: reward transform %s: reward[%d] = %v gives %v", t.Spec, i, r, v)
		}
		t.buf[i] = v
	}
	return t.Estimator.Advantages(dst, t.buf)
}

// estimator is the configured estimator behind the configured reward
// transform.
func (c *Config) estimator() (Estimator, error) {
	est, err := NewEstimator(c.Estimator, c.Tau)
	if err != nil {
		return nil, err
	}
	f, err := ParseRewardTransform(c.RewardTransform)
	if err != nil || f == nil {
		return est, err
	}
	return &Transformed{Estimator: est, Spec: c.RewardTransform, F: f}, nil
}
