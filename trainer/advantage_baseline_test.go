package trainer

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Hand-computed: r = [1, 2, 3, 6] has mean 3 and population std √3.5.
func TestBaselineKnownValues(t *testing.T) {
	r := []float64{1, 2, 3, 6}
	sd := math.Sqrt(3.5)
	cases := []struct {
		est  Estimator
		want []float64
	}{
		{GRPO{}, []float64{-2 / sd, -1 / sd, 0, 3 / sd}},
		{DrGRPO{}, []float64{-2, -1, 0, 3}},
		{RLOO{}, []float64{1 - 11.0/3, 2 - 10.0/3, 3 - 9.0/3, 6 - 6.0/3}},
		{Reinforce{}, []float64{1, 2, 3, 6}},
	}
	for _, c := range cases {
		got := make([]float64, len(r))
		if err := c.est.Advantages(got, r); err != nil {
			t.Fatalf("%s: %v", c.est.Name(), err)
		}
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-14 {
				t.Errorf("%s: A[%d] = %.17g, want %.17g", c.est.Name(), i, got[i], c.want[i])
			}
		}
	}
}

func TestBaselineDegenerateGroups(t *testing.T) {
	for _, est := range []Estimator{GRPO{}, DrGRPO{}, RLOO{}} {
		for _, r := range [][]float64{{4}, {2.5, 2.5, 2.5}} {
			got := make([]float64, len(r))
			if err := est.Advantages(got, r); err != nil {
				t.Fatal(err)
			}
			for i, v := range got {
				if v != 0 {
					t.Errorf("%s(%v)[%d] = %v, want 0", est.Name(), r, i, v)
				}
			}
		}
	}
	// GRPO's std floor: a spread of 1e-6 is divided by 1e-3, not by itself.
	got := make([]float64, 2)
	if err := (GRPO{}).Advantages(got, []float64{0, 1e-6}); err != nil {
		t.Fatal(err)
	}
	if math.Abs(got[1]-5e-4) > 1e-15 {
		t.Errorf("GRPO with tiny std: A = %v, want ±5e-4", got)
	}
}

func TestNewEstimator(t *testing.T) {
	for _, name := range EstimatorNames() {
		e, err := NewEstimator(name, 0)
		if err != nil || e.Name() != name {
			t.Errorf("NewEstimator(%q) = %v, %v", name, e, err)
		}
	}
	if e, err := NewEstimator("", 0); err != nil || e != (SoftRankEstimator{Tau: DefaultTau}) {
		t.Errorf(`NewEstimator("", 0) = %v, %v, want softrank τ=0.8`, e, err)
	}
	if e, err := NewEstimator("SoftRank", 0.3); err != nil || e != (SoftRankEstimator{Tau: 0.3}) {
		t.Errorf(`NewEstimator("SoftRank", 0.3) = %v, %v`, e, err)
	}
	for _, c := range []struct {
		name string
		tau  float64
		want string
	}{
		{"ppo", 0, `unknown advantage estimator "ppo"`},
		{"softrank", -1, "tau -1"},
		{"softrank", math.NaN(), "tau NaN"},
	} {
		if _, err := NewEstimator(c.name, c.tau); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewEstimator(%q, %v) = %v, want %q", c.name, c.tau, err, c.want)
		}
	}
}

func TestEstimatorsBadInput(t *testing.T) {
	ests := []Estimator{SoftRankEstimator{Tau: 0.8}, GRPO{}, DrGRPO{}, RLOO{}, Reinforce{}}
	for _, e := range ests {
		for _, c := range []struct {
			dst, r []float64
			want   string
		}{
			{nil, nil, "empty group"},
			{make([]float64, 1), []float64{1, 2}, "len(dst)=1 for 2 rewards"},
			{make([]float64, 2), []float64{math.NaN(), 2}, "reward[0] is NaN"},
			{make([]float64, 2), []float64{1, math.Inf(-1)}, "reward[1] is -Inf"},
		} {
			err := e.Advantages(c.dst, c.r)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), e.Name()) {
				t.Errorf("%s.Advantages(len %d, %v) = %v, want an error naming it with %q", e.Name(), len(c.dst), c.r, err, c.want)
			}
		}
	}
	// Overflowing advantages are an error, not ±Inf; GRPO is scale-free and
	// stays exact.
	r := []float64{math.MaxFloat64, -math.MaxFloat64, -math.MaxFloat64}
	for _, e := range []Estimator{DrGRPO{}, RLOO{}} {
		dst := make([]float64, 3)
		if err := e.Advantages(dst, r); err == nil || !strings.Contains(err.Error(), "overflows") {
			t.Errorf("%s on ±MaxFloat64: %v, dst %v", e.Name(), err, dst)
		}
	}
	dst := make([]float64, 3)
	if err := (GRPO{}).Advantages(dst, r); err != nil || math.Abs(dst[0]-math.Sqrt2) > 1e-15 || math.Abs(dst[1]+1/math.Sqrt2) > 1e-15 {
		t.Errorf("GRPO on ±MaxFloat64: %v, %v, want [√2, −1/√2, −1/√2]", dst, err)
	}
}

// scaledMeanStd scales by one multiplication where 2^−e is a float64: the
// same bits as math.Ldexp, subnormal results and huge and tiny inputs
// included.
func TestScaledMeanStdSameBitsAsLdexp(t *testing.T) {
	ref := func(r []float64) (mu, sd float64, e int) {
		amax := 0.0
		for _, v := range r {
			amax = max(amax, math.Abs(v))
		}
		if amax == 0 {
			return 0, 0, 0
		}
		_, e = math.Frexp(amax)
		for _, v := range r {
			mu += math.Ldexp(v, -e)
		}
		mu /= float64(len(r))
		ss := 0.0
		for _, v := range r {
			d := math.Ldexp(v, -e) - mu
			ss += d * d
		}
		return mu, math.Sqrt(ss / float64(len(r))), e
	}
	rng := rand.New(rand.NewPCG(9, 9))
	cases := [][]float64{
		{1, 2, 3}, {-0.5, 0.25}, {math.MaxFloat64, -math.MaxFloat64, 1},
		{math.MaxFloat64, 5e-324, 1e-310, -3e-320}, {5e-324, 1e-323}, {1e-310, -2e-308},
		{1e300, 1e-300, 3e-308}, {0, 0}, {7},
	}
	for range 2000 {
		r := make([]float64, 1+rng.IntN(20))
		for i := range r {
			r[i] = math.Ldexp(rng.NormFloat64(), rng.IntN(2100)-1075)
		}
		cases = append(cases, r)
	}
	for _, r := range cases {
		mu, sd, e := scaledMeanStd(r)
		wmu, wsd, we := ref(r)
		if math.Float64bits(mu) != math.Float64bits(wmu) || math.Float64bits(sd) != math.Float64bits(wsd) || e != we {
			t.Fatalf("scaledMeanStd(%v) = %v, %v, %d; with Ldexp %v, %v, %d", r, mu, sd, e, wmu, wsd, we)
		}
	}
}
