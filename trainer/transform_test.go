package trainer

import (
	"math"
	"strings"
	"testing"
)

// The anchor of the reward-scale ablation, on one group. Every transform
// is strictly increasing, so every estimator keeps the decisions' order;
// what differs is whether the advantages' values move:
//   - ×K: SoftRankPO and GRPO are unchanged (both divide by a scale; GRPO
//     while its std stays above its 1e-3 floor); Dr.GRPO's scale by K.
//   - exp (monotone, not affine): SoftRankPO's depend on the rewards only
//     through their ranks as τ → 0, so at a small τ they do not move;
//     GRPO's do (exp stretches the top of the group).
func TestRewardTransformAnchor(t *testing.T) {
	r := []float64{-1, 0, 0.5, 1, 2}
	adv := func(spec, est string, tau float64) []float64 {
		t.Helper()
		c := DefaultConfig()
		c.Estimator, c.Tau, c.RewardTransform = est, tau, spec
		e, err := c.estimator()
		if err != nil {
			t.Fatal(err)
		}
		a := make([]float64, len(r))
		if err := e.Advantages(a, r); err != nil {
			t.Fatal(err)
		}
		return a
	}
	maxDiff := func(a, b []float64) (d float64) {
		for i := range a {
			d = max(d, math.Abs(a[i]-b[i]))
		}
		return d
	}
	increasing := func(a []float64) bool {
		for i := 1; i < len(a); i++ {
			if !(a[i] > a[i-1]) {
				return false
			}
		}
		return true
	}
	for _, est := range EstimatorNames() {
		for _, spec := range []string{"", "scale:0.1", "scale:10", "exp"} {
			if a := adv(spec, est, 0.8); !increasing(a) {
				t.Errorf("%s∘%q: advantages %v not increasing in r", est, spec, a)
			}
		}
	}
	for _, spec := range []string{"scale:0.1", "scale:10"} {
		if d := maxDiff(adv(spec, SoftRankName, 0.8), adv("", SoftRankName, 0.8)); d > 1e-12 {
			t.Errorf("softrank ×%s moved by %g", spec, d)
		}
		if d := maxDiff(adv(spec, GRPOName, 0), adv("", GRPOName, 0)); d > 1e-12 {
			t.Errorf("grpo ×%s moved by %g", spec, d)
		}
	}
	if a, b := adv("scale:10", DrGRPOName, 0), adv("", DrGRPOName, 0); math.Abs(a[4]-10*b[4]) > 1e-12 {
		t.Errorf("drgrpo ×10: top advantage %v, want 10 × %v", a[4], b[4])
	}
	const tiny = 1e-4 // τ → 0: Hazen positions of the ranks
	if d := maxDiff(adv("exp", SoftRankName, tiny), adv("", SoftRankName, tiny)); d > 1e-9 {
		t.Errorf("softrank τ=%g: exp moved the advantages by %g, want ranks only", tiny, d)
	}
	if d := maxDiff(adv("exp", GRPOName, 0), adv("", GRPOName, 0)); d < 0.1 {
		t.Errorf("grpo: exp moved the advantages by only %g", d)
	}
}

func TestRewardTransformParse(t *testing.T) {
	for _, bad := range []string{"log", "scale:", "scale:0", "scale:-2", "scale:inf", "scale:NaN", "x10"} {
		if _, err := ParseRewardTransform(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
		c := DefaultConfig()
		c.RewardTransform = bad
		if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "reward_transform") {
			t.Errorf("Validate(%q): %v, want an error naming reward_transform", bad, err)
		}
	}
	c := DefaultConfig()
	c.RewardTransform = "exp"
	e, _ := c.estimator()
	if err := e.Advantages(make([]float64, 2), []float64{0, 800}); err == nil || !strings.Contains(err.Error(), "exp") {
		t.Errorf("exp(800) overflow: %v, want an error naming the transform", err)
	}
}
