package trainer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
)

// This file holds an independent SoftRankPO written line by line from design §3
// (own median, std, sigmoid, and Φ⁻¹ by bisection on math.Erfc), sharing no
// code with the package, and the random groups the property tests draw.

// phi is the standard normal CDF for x ≤ 0, accurate in relative terms.
func phiLower(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }

// quantileBisect is Φ⁻¹(p) by bisection; p > 1/2 uses the symmetry
// Φ⁻¹(p) = −Φ⁻¹(1 − p), where 1 − p is exact.
func quantileBisect(p float64) float64 {
	if p > 0.5 {
		return -quantileBisect(1 - p)
	}
	lo, hi := -40.0, 0.0
	for range 200 {
		mid := lo + (hi-lo)/2
		if mid == lo || mid == hi {
			break
		}
		if phiLower(mid) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + (hi-lo)/2
}

func naiveMedian(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// naiveScale is design §3's c.
func naiveScale(r []float64) float64 {
	m := naiveMedian(r)
	dev := make([]float64, len(r))
	for i, v := range r {
		dev[i] = math.Abs(v - m)
	}
	c := 1.4826 * naiveMedian(dev)
	if c <= 1e-12 {
		mu := 0.0
		for _, v := range r {
			mu += v
		}
		mu /= float64(len(r))
		ss := 0.0
		for _, v := range r {
			ss += (v - mu) * (v - mu)
		}
		c = math.Sqrt(ss / float64(len(r)))
	}
	return c
}

// naivePositions is s_i of design §3, or nil when the advantages are all zero.
func naivePositions(r []float64, tau float64) []float64 {
	n := len(r)
	if n < 2 || slicesMax(r)-slicesMin(r) <= 1e-12 {
		return nil
	}
	c := naiveScale(r)
	s := make([]float64, n)
	for i := range r {
		s[i] = 0.5
		for j := range r {
			if j != i {
				d := (r[i] - r[j]) / (tau * c)
				s[i] += 1 / (1 + math.Exp(-d))
			}
		}
	}
	return s
}

func naiveSoftRank(r []float64, tau float64) []float64 {
	a := make([]float64, len(r))
	s := naivePositions(r, tau)
	if s == nil {
		return a
	}
	qm := 0.0
	for i := range s {
		a[i] = quantileBisect(s[i] / float64(len(r)))
		qm += a[i]
	}
	qm /= float64(len(r))
	for i := range a {
		a[i] -= qm
	}
	return a
}

func slicesMax(v []float64) float64 {
	m := math.Inf(-1)
	for _, x := range v {
		m = max(m, x)
	}
	return m
}

func slicesMin(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}

// midRanks are the 1-based ranks of r with ties averaged.
func midRanks(r []float64) []float64 {
	k := make([]float64, len(r))
	for i, v := range r {
		less, eq := 0, 0
		for _, w := range r {
			if w < v {
				less++
			} else if w == v {
				eq++
			}
		}
		k[i] = float64(less) + float64(eq+1)/2
	}
	return k
}

// group is one random test group.
type group struct {
	name string
	r    []float64
}

// randomGroups draws count groups of every kind, sizes 1..64:
// continuous, tied (a few integer levels), huge (×1e12) and tiny (×1e-9)
// scales, and continuous with one 1e9 outlier.
func randomGroups(seed uint64, count int) []group {
	rng := rand.New(rand.NewPCG(seed, 1))
	var out []group
	for c := range count {
		n := 1 + rng.IntN(64)
		cont := make([]float64, n)
		ties := make([]float64, n)
		for i := range n {
			cont[i] = rng.NormFloat64()
			ties[i] = float64(rng.IntN(4) - 2)
		}
		huge := make([]float64, n)
		tiny := make([]float64, n)
		for i, v := range cont {
			huge[i], tiny[i] = v*1e12, v*1e-9
		}
		outl := append([]float64(nil), cont...)
		outl[rng.IntN(n)] = 1e9
		tag := func(kind string) string { return fmt.Sprintf("%s/%d/n=%d", kind, c, n) }
		out = append(out,
			group{tag("continuous"), cont},
			group{tag("ties"), ties},
			group{tag("huge"), huge},
			group{tag("tiny"), tiny},
			group{tag("outlier"), outl},
		)
	}
	return out
}
