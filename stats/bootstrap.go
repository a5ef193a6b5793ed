package stats

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Interval is an estimate with the bounds of a confidence interval.
type Interval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// Bootstrap configures a percentile cluster bootstrap. The zero value
// means DefaultResamples resamples, a 95% interval and seed 0.
type Bootstrap struct {
	// Resamples is the number of bootstrap draws B; 0 means
	// DefaultResamples.
	Resamples int
	// Level is the coverage of the interval in (0, 1); 0 means 0.95.
	Level float64
	// Seed seeds the draws.
	Seed uint64
}

// DefaultResamples is the number of draws of a zero Bootstrap: enough that
// the bounds of a 95% interval move by well under a tenth of its width
// from one seed to another.
const DefaultResamples = 2000

// bootStream is the second PCG word, so that a bootstrap seed does not
// replay another generator seeded alike.
const bootStream = 0x626f6f74 // "boot"

func (b Bootstrap) resolved() (Bootstrap, error) {
	if b.Resamples == 0 {
		b.Resamples = DefaultResamples
	}
	if b.Level == 0 {
		b.Level = 0.95
	}
	if b.Resamples < 1 {
		return b, fmt.Errorf("stats: bootstrap: %d resamples, want ≥ 1", b.Resamples)
	}
	if !(b.Level > 0 && b.Level < 1) {
		return b, fmt.Errorf("stats: bootstrap: level %v, want in (0, 1)", b.Level)
	}
	return b, nil
}

// Mean returns the mean of x with a cluster-bootstrap interval: cluster[i]
// names the cluster of x[i] (equal labels are one cluster). It needs
// len(cluster) == len(x) ≥ 1 and finite values.
func (b Bootstrap) Mean(x []float64, cluster []int) (Interval, error) {
	return b.PairedDiff(x, nil, cluster)
}

// PairedDiff returns the mean of x[i] − y[i] with a cluster-bootstrap
// interval that draws whole clusters of pairs. y == nil means zeros (Mean).
func (b Bootstrap) PairedDiff(x, y []float64, cluster []int) (Interval, error) {
	sums, counts, err := clusterSums(x, y, cluster)
	if err != nil {
		return Interval{}, err
	}
	stats, err := b.Distribution(sums, counts)
	if err != nil {
		return Interval{}, err
	}
	b, _ = b.resolved()
	lo, hi := Percentiles(stats, b.Level)
	return Interval{Estimate: ratio(sums, counts), Low: lo, High: hi}, nil
}

// Distribution returns the B bootstrap statistics, sorted, of clusters
// given by their sums and observation counts: each draw takes len(sums)
// clusters uniformly with replacement and computes Σ sums / Σ counts over
// them. Counts must be ≥ 1.
func (b Bootstrap) Distribution(sums []float64, counts []int) ([]float64, error) {
	b, err := b.resolved()
	if err != nil {
		return nil, err
	}
	c := len(sums)
	if c == 0 || len(counts) != c {
		return nil, fmt.Errorf("stats: bootstrap: %d cluster sums and %d counts, want the same number ≥ 1", c, len(counts))
	}
	for k, n := range counts {
		if n < 1 {
			return nil, fmt.Errorf("stats: bootstrap: cluster %d has %d observations, want ≥ 1", k, n)
		}
	}
	rng := rand.NewPCG(b.Seed, bootStream)
	out := make([]float64, b.Resamples)
	for r := range out {
		s, n := 0.0, 0
		for range c {
			k := intN(rng, uint64(c))
			s += sums[k]
			n += counts[k]
		}
		out[r] = s / float64(n)
	}
	slices.Sort(out)
	return out, nil
}

// intN is rand.New(p).IntN(n) for n ≥ 1: the same draws (math/rand/v2's
// Lemire reduction, which 32-bit machines reproduce), without an
// interface call per draw, which was half of a study's bootstrap.
func intN(p *rand.PCG, n uint64) int {
	if n&(n-1) == 0 { // a power of two: mask
		return int(p.Uint64() & (n - 1))
	}
	hi, lo := bits.Mul64(p.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(p.Uint64(), n)
		}
	}
	return int(hi)
}

// clusterSums sums x − y per cluster, clusters numbered in order of first
// appearance.
func clusterSums(x, y []float64, cluster []int) (sums []float64, counts []int, err error) {
	switch {
	case len(x) == 0:
		return nil, nil, fmt.Errorf("stats: bootstrap: no observations")
	case len(cluster) != len(x):
		return nil, nil, fmt.Errorf("stats: bootstrap: %d observations and %d cluster labels", len(x), len(cluster))
	case y != nil && len(y) != len(x):
		return nil, nil, fmt.Errorf("stats: bootstrap: paired samples of %d and %d observations", len(x), len(y))
	}
	index := map[int]int{}
	for i, v := range x {
		if y != nil {
			v -= y[i]
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil, nil, fmt.Errorf("stats: bootstrap: observation %d is %v", i, v)
		}
		k, ok := index[cluster[i]]
		if !ok {
			k = len(sums)
			index[cluster[i]] = k
			sums = append(sums, 0)
			counts = append(counts, 0)
		}
		sums[k] += v
		counts[k]++
	}
	return sums, counts, nil
}

func ratio(sums []float64, counts []int) float64 {
	s, n := 0.0, 0
	for k := range sums {
		s += sums[k]
		n += counts[k]
	}
	return s / float64(n)
}

// Percentiles returns the order statistics that bound the middle level
// share of sorted: the (⌊B·α/2⌋+1)-th and the ⌈B·(1−α/2)⌉-th smallest of
// the B, α = 1 − level: the percentile interval of a sorted Distribution.
func Percentiles(sorted []float64, level float64) (lo, hi float64) {
	n := len(sorted)
	a := (1 - level) / 2
	i := int(math.Floor(float64(n) * a)) // 0-based index of the ⌊Bα/2⌋+1-th
	j := int(math.Ceil(float64(n)*(1-a))) - 1
	i = min(max(i, 0), n-1)
	j = min(max(j, 0), n-1)
	return sorted[i], sorted[j]
}
