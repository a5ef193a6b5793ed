package trainer

// How SoftRankPO is computed.
//
// SoftRankPO follows design §3 to the letter, including its two absolute
// thresholds: a group whose rewards span ≤ 1e-12 gets zeros, and a robust
// scale c = 1.4826·MAD ≤ 1e-12 falls back to the std. The advantages are
// therefore invariant to scale and shift only as long as neither threshold
// is crossed. How it is computed:
//
//   - Rewards are divided by the power of two 2^e just above max|r|. That is
//     exact, so ties, order and every ratio (r_i − r_j)/(τc) are unchanged,
//     a power-of-two rescaling of the rewards changes no bit of the result,
//     and rewards near ±MaxFloat64 neither overflow nor lose order.
//   - Medians sort (of an even count: the mean of the middle two).
//   - Equal rewards are merged into one value with a multiplicity (a tie
//     adds σ(0) = 1/2 per partner), so they get bit-identical advantages and
//     the pairwise sums cost O(u²) for u distinct rewards: a group of 4096
//     rewards on five levels is as cheap as one of five.
//   - The sums visit each pair once (σ(−d) = 1 − σ(d)); pairs farther apart
//     than 50·τc add exactly 0 or 1 (σ(−50) < 2e-22, below half an ulp of
//     any s_i); within a block of values spanning ≤ 50·τc the exponential
//     of a difference is a product of two precomputed ones, so the inner
//     loop has no exp. softRankSumsRef is the plain loop it replaces; the
//     tests hold them within 1e-12.
//   - Φ⁻¹ is gonum's distuv.UnitNormal.Quantile. A running maximum over
//     the sorted distinct values keeps A non-decreasing in r against
//     rounding (it can move a value by rounding error only).
//   - The scratch buffers come from a sync.Pool; SoftRankTo allocates
//     nothing once they have grown to the group size. Estimators carry no
//     mutable state and are safe for concurrent use.

import (
	"cmp"
	"math"
	"slices"
	"sync"

	"gonum.org/v1/gonum/stat/distuv"
)

// DefaultTau is SoftRankPO's default temperature, the paper's best (design §3).
const DefaultTau = 0.8

const (
	rangeEps = 1e-12  // design §3: rewards spanning no more than this carry no signal
	scaleEps = 1e-12  // design §3: a robust scale at or below this falls back to the std
	madScale = 1.4826 // makes the MAD estimate σ for normal data
)

// SoftRankEstimator is SoftRankPO's estimator with temperature Tau (> 0).
type SoftRankEstimator struct{ Tau float64 }

func (SoftRankEstimator) Name() string { return SoftRankName }

func (e SoftRankEstimator) Advantages(dst, rewards []float64) error {
	return SoftRankTo(dst, rewards, e.Tau)
}

// SoftRank returns the SoftRankPO advantages of one group of rewards with
// temperature tau, or nil when the input is bad (see SoftRankTo).
func SoftRank(rewards []float64, tau float64) []float64 {
	dst := make([]float64, len(rewards))
	if SoftRankTo(dst, rewards, tau) != nil {
		return nil
	}
	return dst
}

// SoftRankTo writes the SoftRankPO advantages of one group into dst
// (design §3):
//
//	if n < 2 or max(r) − min(r) ≤ 1e-12:  A_i = 0
//	c   = 1.4826·median|r − median(r)|;  if c ≤ 1e-12: c = std(r)
//	s_i = 1/2 + Σ_{j≠i} σ((r_i − r_j)/(τc))
//	A_i = Φ⁻¹(s_i/n) − mean_j Φ⁻¹(s_j/n)
//
// It returns an error, leaving dst unspecified, for an empty group, a dst of
// another length, a NaN or infinite reward, or tau not finite and > 0.
// It does not allocate once its pooled scratch has grown to the group size;
// the pairwise sums cost O(u²) for u distinct rewards.
func SoftRankTo(dst, rewards []float64, tau float64) error {
	if err := checkGroup(SoftRankName, dst, rewards); err != nil {
		return err
	}
	if err := checkTau(tau); err != nil {
		return err
	}
	sc := softRankPool.Get().(*softRankScratch)
	sc.advantages(dst, rewards, tau)
	softRankPool.Put(sc)
	return nil
}

var softRankPool = sync.Pool{New: func() any { return new(softRankScratch) }}

// softRankScratch holds the buffers of one SoftRankPO computation; they grow
// to the largest group seen and are reused.
type softRankScratch struct {
	sorted []valIdx   // scaled rewards with their row, ascending
	dev    []float64  // |x − median(x)|, for the MAD
	id     []int32    // row → index of its distinct value
	u, m   []float64  // distinct values ascending, and their multiplicities
	s      []float64  // s_k per distinct value, then Φ⁻¹(s_k/n)
	sums   sumScratch // buffers of softRankSums
}

type valIdx struct {
	v float64
	i int32
}

// advantages computes SoftRankTo on validated input.
func (sc *softRankScratch) advantages(dst, r []float64, tau float64) {
	if !sc.positions(r, tau) {
		clear(dst)
		return
	}
	// q = Φ⁻¹(s/n). s/n lies in [1/(2n), 1 − 1/(2n)]. The running max keeps
	// q non-decreasing in r against rounding in the sums and in Φ⁻¹; it moves
	// a value by rounding error at most.
	fn := float64(len(r))
	qsum := 0.0
	for k := range sc.s {
		q := distuv.UnitNormal.Quantile(min(max(sc.s[k]/fn, 0), 1))
		if k > 0 {
			q = max(q, sc.s[k-1])
		}
		sc.s[k] = q
		qsum += sc.m[k] * q
	}
	qmean := qsum / fn
	for i := range dst {
		dst[i] = sc.s[sc.id[i]] - qmean
	}
}

// positions computes the soft ranks: sc.s[k] is s_i of design §3 for every
// reward r_i equal to the k-th smallest distinct reward sc.u[k], and
// sc.id[i] is r_i's k. It reports false, computing nothing, when all
// advantages are zero (n < 2 or a range ≤ 1e-12).
func (sc *softRankScratch) positions(r []float64, tau float64) bool {
	n := len(r)
	lo, hi, amax := r[0], r[0], 0.0
	for _, v := range r {
		lo, hi, amax = min(lo, v), max(hi, v), max(amax, math.Abs(v))
	}
	if n < 2 || hi-lo <= rangeEps {
		return false
	}

	// Work on x = r/2^e with max|x| in [1/2, 1): the division by a power of
	// two is exact (barring underflow), so ties, order and every ratio
	// (x_i − x_j)/c are those of r, and no square or difference overflows.
	_, e := math.Frexp(amax)
	sc.sorted = grow(sc.sorted, n)
	for i, v := range r {
		sc.sorted[i] = valIdx{math.Ldexp(v, -e), int32(i)}
	}
	slices.SortFunc(sc.sorted, func(a, b valIdx) int { return cmp.Compare(a.v, b.v) })

	med := medianSorted(sc.sorted, func(p valIdx) float64 { return p.v })
	sc.dev = grow(sc.dev, n)
	for k, p := range sc.sorted {
		sc.dev[k] = math.Abs(p.v - med)
	}
	slices.Sort(sc.dev)
	c := madScale * medianSorted(sc.dev, func(v float64) float64 { return v })
	if c <= math.Ldexp(scaleEps, -e) { // c·2^e ≤ 1e-12 on the rewards' scale
		c = stdSorted(sc.sorted)
	}

	// Equal rewards share one distinct value, so they get bit-identical
	// advantages, and the pairwise work is O(u²) for u distinct rewards.
	sc.id = grow(sc.id, n)
	sc.u, sc.m = sc.u[:0], sc.m[:0]
	for k, p := range sc.sorted {
		if k == 0 || p.v != sc.sorted[k-1].v {
			sc.u = append(sc.u, p.v)
			sc.m = append(sc.m, 0)
		}
		last := len(sc.u) - 1
		sc.m[last]++
		sc.id[p.i] = int32(last)
	}
	u := len(sc.u)
	sc.s = grow(sc.s, u)
	// A τc that underflows to 0 makes every distinct pair saturate, as the
	// smallest positive bandwidth does.
	softRankSums(sc.s, sc.u, sc.m, max(tau*c, math.SmallestNonzeroFloat64), &sc.sums)
	return true
}

// medianSorted is the median of a sorted slice; of an even count, the mean of
// the middle two.
func medianSorted[E any](s []E, val func(E) float64) float64 {
	n := len(s)
	if n%2 == 1 {
		return val(s[n/2])
	}
	return (val(s[n/2-1]) + val(s[n/2])) / 2
}

// stdSorted is the population standard deviation of the values (two passes).
func stdSorted(s []valIdx) float64 {
	mu := 0.0
	for _, p := range s {
		mu += p.v
	}
	mu /= float64(len(s))
	ss := 0.0
	for _, p := range s {
		d := p.v - mu
		ss += d * d
	}
	return math.Sqrt(ss / float64(len(s)))
}

// grow returns s resliced to length n, reallocating only when it is too short.
func grow[E any](s []E, n int) []E {
	if cap(s) < n {
		return make([]E, n, n+n/4)
	}
	return s[:n]
}
