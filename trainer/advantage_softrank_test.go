package trainer

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func softRankOrFail(t *testing.T, r []float64, tau float64) []float64 {
	t.Helper()
	a := make([]float64, len(r))
	if err := SoftRankTo(a, r, tau); err != nil {
		t.Fatalf("SoftRankTo(%v, %v): %v", r, tau, err)
	}
	for i, v := range a {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			t.Fatalf("A[%d] = %v for %v", i, v, r)
		}
	}
	return a
}

// Known values. Each row was computed with mpmath 1.3 at 50 significant
// digits by a direct transcription of design §3, sharing nothing with this
// package:
//
//	mp.dps = 50
//	median(v): sorted; odd → middle, even → mean of the middle two
//	softrank(r, tau):
//	    if n < 2 or max(r) − min(r) <= 1e-12: return zeros
//	    c = 1.4826·median(|r − median(r)|); if c <= 1e-12: c = pstdev(r)
//	    s_i = 1/2 + fsum(1/(1 + exp(−(r_i − r_j)/(tau·c))) for j ≠ i)
//	    q_i = sqrt(2)·erfinv(2·s_i/n − 1); return q − fsum(q)/n
//
// printed with 17 significant digits. The first row by hand: r = [0, 1] has
// median 1/2, MAD 1/2, c = 0.7413, d = 1/(0.8c) = 1.68623, σ(d) = 0.84375,
// s = [1.15625, 1.84375], Φ⁻¹(1.84375/2) = Φ⁻¹(0.671875) = 0.44507. The
// test also recomputes every row with its own bisection Φ⁻¹ (helpers file).
var softRankKnown = []struct {
	r    []float64
	tau  float64
	want []float64
	why  string
}{
	{[]float64{0, 1}, 0.8, []float64{-0.44506513416752598, 0.44506513416752598}, "two rewards"},
	{[]float64{0, 0, 1}, 0.8, []float64{-0.39181067031389619, -0.39181067031389619, 0.78362134062779239}, "MAD 0: std fallback"},
	{[]float64{1, 2, 3, 4}, 0.8, []float64{-0.65031395929415876, -0.21709239291846619, 0.21709239291846619, 0.65031395929415876}, "even count: median of the middle two"},
	{[]float64{3, -1, 2, 2, 10}, 0.5, []float64{0.29150874538764458, -1.2437693303844079, -0.16192089439410348, -0.16192089439410348, 1.2761023737849703}, "ties, τ = 0.5"},
	{[]float64{0.25, -3, 7.5, 1, 1, 1, 2}, 2, []float64{-0.23028596866962109, -0.95590580482732246, 1.2037000433127704, -0.060049282449448318, -0.060049282449448318, -0.060049282449448318, 0.16263957753251808}, "triple tie, τ = 2"},
	{[]float64{0, 1, 2, 3, 1e9}, 0.8, []float64{-0.85655742297350777, -0.47331679289552135, -0.11528896558579252, 0.20047676149228348, 1.2446864199625382}, "outlier"},
	{[]float64{5}, 0.8, []float64{0}, "one reward"},
	{[]float64{2, 2 + 1e-13, 2}, 0.8, []float64{0, 0, 0}, "range ≤ 1e-12"},
}

func TestSoftRankKnownValues(t *testing.T) {
	for _, c := range softRankKnown {
		got := softRankOrFail(t, c.r, c.tau)
		naive := naiveSoftRank(c.r, c.tau)
		for i := range got {
			if math.Abs(got[i]-c.want[i]) > 1e-13 {
				t.Errorf("%s: A[%d] = %.17g, want %.17g (mpmath)", c.why, i, got[i], c.want[i])
			}
			if math.Abs(naive[i]-c.want[i]) > 1e-12 {
				t.Errorf("%s: the test's own bisection Φ⁻¹ gives A[%d] = %.17g, want %.17g", c.why, i, naive[i], c.want[i])
			}
		}
	}
}

func TestSoftRankMatchesNaive(t *testing.T) {
	for _, g := range randomGroups(1, 30) {
		for _, tau := range []float64{0.05, 0.8, 5} {
			got := softRankOrFail(t, g.r, tau)
			want := naiveSoftRank(g.r, tau)
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-9 {
					t.Fatalf("%s τ=%v: A[%d] = %.17g, naive %.17g", g.name, tau, i, got[i], want[i])
				}
			}
		}
	}
}

// The fast pairwise sums against their plain loop, including spreads wide
// enough for several blocks, saturated pairs and ties.
func TestSoftRankSumsMatchReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	var sc sumScratch
	for trial := range 200 {
		k := 1 + rng.IntN(300)
		u := make([]float64, k)
		m := make([]float64, k)
		spread := []float64{0.1, 1, 30, 200, 1e4}[trial%5]
		x := 0.0
		for i := range u {
			x += rng.ExpFloat64() * spread / float64(k)
			if trial%7 == 0 && i == k/2 {
				x += 1e6 // a gap far beyond saturation
			}
			u[i] = x
			m[i] = float64(1 + rng.IntN(3))
		}
		h := 1.0
		got, want := make([]float64, k), make([]float64, k)
		softRankSums(got, u, m, h, &sc)
		softRankSumsRef(want, u, m, h)
		for i := range got {
			if math.Abs(got[i]-want[i]) > 1e-12*want[i] {
				t.Fatalf("trial %d (k=%d spread=%v): s[%d] = %.17g, ref %.17g", trial, k, spread, i, got[i], want[i])
			}
		}
	}
}

func TestSoftRankScaleShiftInvariance(t *testing.T) {
	for _, g := range randomGroups(3, 20) {
		base := softRankOrFail(t, g.r, DefaultTau)
		if len(g.r) < 2 {
			continue
		}
		spread := naiveScale(g.r) // shifts in units of the robust scale keep precision
		for _, a := range []float64{3.7, 1e6, 1e-3, 0.25} {
			for _, b := range []float64{0, -5, 1e3} {
				// Stay clear of design §3's absolute 1e-12 thresholds, which are
				// not scale-free by design.
				if a*spread < 1e-9 {
					continue
				}
				r := make([]float64, len(g.r))
				for i, v := range g.r {
					r[i] = a*v + b*spread
				}
				got := softRankOrFail(t, r, DefaultTau)
				for i := range got {
					if math.Abs(got[i]-base[i]) > 1e-9 {
						t.Fatalf("%s: A(%v·r + %v·c)[%d] = %.17g, A(r) = %.17g", g.name, a, b, i, got[i], base[i])
					}
				}
			}
		}
		// A power-of-two scale changes no bit.
		r := make([]float64, len(g.r))
		for i, v := range g.r {
			r[i] = math.Ldexp(v, 7)
		}
		got := softRankOrFail(t, r, DefaultTau)
		for i := range got {
			if got[i] != base[i] {
				t.Fatalf("%s: A(2⁷·r)[%d] = %.17g, A(r) = %.17g, want identical bits", g.name, i, got[i], base[i])
			}
		}
	}
}

func TestSoftRankEqualRewardsEqualAdvantages(t *testing.T) {
	tied := 0
	for _, g := range randomGroups(4, 30) {
		a := softRankOrFail(t, g.r, DefaultTau)
		for i := range g.r {
			for j := range g.r {
				if g.r[i] == g.r[j] {
					tied++
					if a[i] != a[j] {
						t.Fatalf("%s: r[%d] = r[%d] = %v but A = %.17g, %.17g", g.name, i, j, g.r[i], a[i], a[j])
					}
				}
			}
		}
	}
	if tied == 0 {
		t.Fatal("no tied pair drawn: the test checked nothing")
	}
}

func TestSoftRankMonotone(t *testing.T) {
	for _, g := range randomGroups(5, 30) {
		for _, tau := range []float64{0.01, DefaultTau, 10} {
			a := softRankOrFail(t, g.r, tau)
			for i := range g.r {
				for j := range g.r {
					if g.r[i] < g.r[j] && !(a[i] < a[j]) {
						t.Fatalf("%s τ=%v: r[%d]=%v < r[%d]=%v but A = %.17g ≥ %.17g", g.name, tau, i, g.r[i], j, g.r[j], a[i], a[j])
					}
				}
			}
		}
	}
}

func TestSoftRankMeanZero(t *testing.T) {
	for _, g := range randomGroups(6, 30) {
		a := softRankOrFail(t, g.r, DefaultTau)
		s := 0.0
		for _, v := range a {
			s += v
		}
		if m := s / float64(len(a)); math.Abs(m) > 1e-13 {
			t.Fatalf("%s: mean(A) = %g", g.name, m)
		}
	}
}

func TestSoftRankBound(t *testing.T) {
	for _, g := range randomGroups(7, 30) {
		n := float64(len(g.r))
		bound := 2 * quantileBisect(1-1/(2*n))
		for _, tau := range []float64{1e-6, DefaultTau, 1e3} {
			a := softRankOrFail(t, g.r, tau)
			for i, v := range a {
				if math.Abs(v) > bound+1e-12 {
					t.Fatalf("%s τ=%v: |A[%d]| = %v > 2Φ⁻¹(1 − 1/2n) = %v", g.name, tau, i, v, bound)
				}
			}
		}
	}
}

// As τ → 0 the logistic becomes a step, so s_i/n is the Hazen position
// (k_i − 1/2)/n with mid-ranks k_i.
func TestSoftRankHazenLimit(t *testing.T) {
	var sc softRankScratch
	for _, g := range randomGroups(8, 30) {
		n := len(g.r)
		if !sc.positions(g.r, 1e-6) {
			if n >= 2 && slicesMax(g.r) > slicesMin(g.r) {
				t.Fatalf("%s: positions reported no signal", g.name)
			}
			continue
		}
		k := midRanks(g.r)
		for i := range g.r {
			got := sc.s[sc.id[i]] / float64(n)
			want := (k[i] - 0.5) / float64(n)
			if math.Abs(got-want) > 1e-12 {
				t.Fatalf("%s: s_%d/n = %.17g, Hazen (k − 1/2)/n = %.17g (k = %v)", g.name, i, got, want, k[i])
			}
		}
		// Through the public API: A_i = Φ⁻¹(Hazen_i) − mean.
		a := softRankOrFail(t, g.r, 1e-6)
		qm := 0.0
		q := make([]float64, n)
		for i := range q {
			q[i] = quantileBisect((k[i] - 0.5) / float64(n))
			qm += q[i] / float64(n)
		}
		for i := range a {
			if math.Abs(a[i]-(q[i]-qm)) > 1e-9 {
				t.Fatalf("%s: A[%d] = %.17g at τ→0, want Φ⁻¹(Hazen) − mean = %.17g", g.name, i, a[i], q[i]-qm)
			}
		}
	}
}

// gapsOfOthers returns the advantage gaps between consecutive rewards of r
// other than row skip, in increasing order of reward.
func gapsOfOthers(r, a []float64, skip int) []float64 {
	type ra struct{ r, a float64 }
	var v []ra
	for i := range r {
		if i != skip {
			v = append(v, ra{r[i], a[i]})
		}
	}
	for i := range v { // insertion sort: small n
		for j := i; j > 0 && v[j].r < v[j-1].r; j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
	g := make([]float64, 0, len(v))
	for i := 1; i < len(v); i++ {
		g = append(g, v[i].a-v[i-1].a)
	}
	return g
}

// One huge outlier takes the top quantile; the others keep their order and
// stay about as far apart as when the same row holds an ordinary top reward
// (max of the others + 1), where GRPO squeezes them into a tie.
func TestSoftRankOutlier(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	for trial := range 40 {
		n := 3 + rng.IntN(62)
		r := make([]float64, n)
		for i := range r {
			r[i] = rng.NormFloat64()
		}
		o := rng.IntN(n)
		r[o] = math.Inf(-1)
		withOut := append([]float64(nil), r...)
		withOut[o] = 1e9
		plain := append([]float64(nil), r...)
		plain[o] = slicesMax(r) + 1

		a := softRankOrFail(t, withOut, DefaultTau)
		var sc softRankScratch
		sc.positions(withOut, DefaultTau)
		if s := sc.s[sc.id[o]]; math.Abs(s-(float64(n)-0.5)) > 1e-12 {
			t.Fatalf("trial %d: outlier's s = %v, want the top n − 1/2 = %v", trial, s, float64(n)-0.5)
		}
		for i := range a {
			if i != o && !(a[i] < a[o]) {
				t.Fatalf("trial %d: A[%d] = %v not below the outlier's %v", trial, i, a[i], a[o])
			}
		}
		with := gapsOfOthers(withOut, a, o)
		ref := gapsOfOthers(plain, softRankOrFail(t, plain, DefaultTau), o)
		for k := range with {
			if !(with[k] > 0) || with[k] < 0.5*ref[k] {
				t.Fatalf("trial %d (n=%d): gap %d between others is %v with the outlier, %v with an ordinary top", trial, n, k, with[k], ref[k])
			}
		}
		// The same criterion catches GRPO's collapse.
		gw, gp := make([]float64, n), make([]float64, n)
		if err := (GRPO{}).Advantages(gw, withOut); err != nil {
			t.Fatal(err)
		}
		if err := (GRPO{}).Advantages(gp, plain); err != nil {
			t.Fatal(err)
		}
		gwg, gpg := gapsOfOthers(withOut, gw, o), gapsOfOthers(plain, gp, o)
		collapsed := false
		for k := range gwg {
			collapsed = collapsed || gwg[k] < 0.5*gpg[k]
		}
		if !collapsed {
			t.Fatalf("trial %d: GRPO kept the others apart; the outlier test is too weak", trial)
		}
	}
}

func TestSoftRankBadInput(t *testing.T) {
	cases := []struct {
		dst, r []float64
		tau    float64
		want   string
	}{
		{[]float64{}, []float64{}, 0.8, "empty group"},
		{make([]float64, 2), []float64{1, math.NaN()}, 0.8, "reward[1] is NaN"},
		{make([]float64, 2), []float64{math.Inf(1), 0}, 0.8, "reward[0] is +Inf"},
		{make([]float64, 2), []float64{math.Inf(-1), 0}, 0.8, "reward[0] is -Inf"},
		{make([]float64, 3), []float64{1, 2}, 0.8, "len(dst)=3 for 2 rewards"},
		{make([]float64, 2), []float64{1, 2}, 0, "tau 0"},
		{make([]float64, 2), []float64{1, 2}, -1, "tau -1"},
		{make([]float64, 2), []float64{1, 2}, math.NaN(), "tau NaN"},
		{make([]float64, 2), []float64{1, 2}, math.Inf(1), "tau +Inf"},
	}
	for _, c := range cases {
		err := SoftRankTo(c.dst, c.r, c.tau)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("SoftRankTo(len %d, %v, %v) = %v, want an error containing %q", len(c.dst), c.r, c.tau, err, c.want)
		}
		if len(c.dst) == len(c.r) && SoftRank(c.r, c.tau) != nil {
			t.Errorf("SoftRank(%v, %v) is not nil", c.r, c.tau)
		}
	}
	if a := SoftRank([]float64{1, 3, 2}, 0.8); len(a) != 3 || !(a[0] < a[2] && a[2] < a[1]) {
		t.Errorf("SoftRank([1 3 2]) = %v", a)
	}
}

// Extreme magnitudes stay finite and ordered: the rewards are rescaled by a
// power of two. (Non-strict: 5e-324 and 0 differ by less than σ resolves, in
// the plain formula too.)
func TestSoftRankExtremeMagnitudes(t *testing.T) {
	for _, r := range [][]float64{
		{math.MaxFloat64, -math.MaxFloat64, 0},
		{1e300, 2e300, 3e300, -1e300},
		{1e-11, 2e-11, 3e-11},
		{5e-324, 0, 1}, // a subnormal
	} {
		a := softRankOrFail(t, r, DefaultTau)
		for i := range r {
			for j := range r {
				if r[i] < r[j] && a[i] > a[j] {
					t.Errorf("%v: A = %v decreases", r, a)
				}
			}
		}
		if a[0] == a[len(a)-1] && r[0] != r[len(r)-1] {
			t.Errorf("%v: A = %v collapsed", r, a)
		}
	}
	// A τ so small that τc underflows saturates every pair (Hazen
	// positions) instead of dividing by zero.
	a := softRankOrFail(t, []float64{0, 1, 2}, 5e-324)
	want := naiveSoftRank([]float64{0, 1, 2}, 1e-9)
	for i := range a {
		if math.Abs(a[i]-want[i]) > 1e-12 {
			t.Errorf("underflowing τc: A = %v, want %v", a, want)
		}
	}
}

func TestSoftRankNoAllocs(t *testing.T) {
	if raceEnabled {
		t.Skip("sync.Pool drops items at random under -race")
	}
	rng := rand.New(rand.NewPCG(10, 10))
	r := make([]float64, 500)
	for i := range r {
		r[i] = rng.NormFloat64()
	}
	dst := make([]float64, len(r))
	_ = SoftRankTo(dst, r, DefaultTau)
	if n := testing.AllocsPerRun(20, func() { _ = SoftRankTo(dst, r, DefaultTau) }); n > 0 {
		t.Errorf("SoftRankTo allocates %v times per call", n)
	}
}
