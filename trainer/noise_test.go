package trainer

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestParseRewardNoise(t *testing.T) {
	if n, err := ParseRewardNoise(""); n != nil || err != nil {
		t.Errorf(`"": %v, %v; want no noise`, n, err)
	}
	if n, err := ParseRewardNoise("student-t:2:0.5"); err != nil || *n != (RewardNoise{DF: 2, Scale: 0.5}) {
		t.Errorf("student-t:2:0.5: %+v, %v", n, err)
	}
	for _, bad := range []string{"t:2:0.5", "student-t:2", "student-t:0:1", "student-t:101:1", "student-t:1.5:1", "student-t:2:0", "student-t:2:-1", "student-t:2:Inf", "student-t:2:NaN", "gauss"} {
		if _, err := ParseRewardNoise(bad); err == nil || !strings.Contains(err.Error(), bad) {
			t.Errorf("%q: %v, want an error naming it", bad, err)
		}
	}
}

// The draws are a function of (seed, iteration): the same pair adds the
// same noise, another seed or iteration other noise; ν = 100 is close to
// a unit normal (std within 5 % over 20 000 draws) and ν = 1 is Cauchy
// (median |T| within 5 % of 1, and draws far beyond a normal's reach).
func TestRewardNoiseDraws(t *testing.T) {
	n := &RewardNoise{DF: 2, Scale: 0.5}
	a, b := make([]float64, 64), make([]float64, 64)
	n.Add(a, 1, 3)
	n.Add(b, 1, 3)
	if !slices.Equal(a, b) || slices.Equal(a, make([]float64, 64)) {
		t.Error("the same seed and iteration gave other noise, or none")
	}
	for _, other := range [][2]uint64{{2, 3}, {1, 4}} {
		c := make([]float64, 64)
		n.Add(c, other[0], int(other[1]))
		if slices.Equal(a, c) {
			t.Errorf("seed %d iteration %d: the same noise as seed 1 iteration 3", other[0], other[1])
		}
	}
	const m = 20000
	gauss := make([]float64, m)
	(&RewardNoise{DF: 100, Scale: 1}).Add(gauss, 7, 0)
	var ss float64
	for _, v := range gauss {
		ss += v * v
	}
	if sd := math.Sqrt(ss / m); math.Abs(sd-math.Sqrt(100.0/98)) > 0.05 {
		t.Errorf("ν = 100: std %v, want ≈ %v", sd, math.Sqrt(100.0/98))
	}
	cauchy := make([]float64, m)
	(&RewardNoise{DF: 1, Scale: 1}).Add(cauchy, 7, 0)
	abs := make([]float64, m)
	for i, v := range cauchy {
		abs[i] = math.Abs(v)
	}
	slices.Sort(abs)
	if med := abs[m/2]; math.Abs(med-1) > 0.05 {
		t.Errorf("ν = 1: median |T| %v, want ≈ 1", med)
	}
	if abs[m-1] < 100 || math.IsInf(abs[m-1], 0) {
		t.Errorf("ν = 1: largest |T| of %d draws %v, want a heavy tail (≥ 100) and finite", m, abs[m-1])
	}
}

// reward_noise is validated, refused with a counterfactual credit, and
// omitted from a config's JSON when unset (configs keep their bytes).
func TestConfigRewardNoise(t *testing.T) {
	c := DefaultConfig()
	js, _ := json.Marshal(c)
	if strings.Contains(string(js), "reward_noise") {
		t.Error("an unset reward_noise is in the config's JSON")
	}
	c.RewardNoise = "student-t:2:0.5"
	if err := c.Validate(); err != nil {
		t.Error(err)
	}
	c.RewardNoise = "student-t:x:1"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "reward_noise") {
		t.Errorf("a bad noise: %v", err)
	}
	c.RewardNoise, c.Credit = "student-t:2:0.5", CreditBaseline
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "credit") {
		t.Errorf("noise with a counterfactual credit: %v", err)
	}
}
