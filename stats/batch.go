package stats

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Paired is one interval of a batch (PairedDiffs): the mean of X[i] − Y[i]
// (Y nil: of X) resampled by Cluster, as PairedDiff takes them.
type Paired struct {
	X, Y    []float64
	Cluster []int
}

// PairedError is PairedDiffs' error: request Index was refused (Err is
// what PairedDiff says of it).
type PairedError struct {
	Index int
	Err   error
}

func (e *PairedError) Error() string { return fmt.Sprintf("request %d: %v", e.Index, e.Err) }
func (e *PairedError) Unwrap() error { return e.Err }

// PairedDiffs returns PairedDiff of every request, the same intervals bit
// for bit. Requests with as many clusters draw the same clusters (one seed,
// one stream), so they are resampled together: one draw serves them all,
// and their cluster sums sit side by side in memory. A report's dozens of
// intervals over the same questions cost about one. The error is the first
// refused request's, as a *PairedError.
func (b Bootstrap) PairedDiffs(reqs []Paired) ([]Interval, error) {
	rb, berr := b.resolved()
	sums := make([][]float64, len(reqs))
	counts := make([][]int, len(reqs))
	byC := map[int][]int{} // cluster count → requests, in order
	var cs []int
	for i, r := range reqs {
		var err error
		if sums[i], counts[i], err = clusterSums(r.X, r.Y, r.Cluster); err != nil {
			return nil, &PairedError{Index: i, Err: err}
		}
		if berr != nil { // refused after the first request's data, as PairedDiff
			return nil, &PairedError{Index: i, Err: berr}
		}
		c := len(sums[i])
		if byC[c] == nil {
			cs = append(cs, c)
		}
		byC[c] = append(byC[c], i)
	}
	out := make([]Interval, len(reqs))
	for _, c := range cs {
		group := byC[c]
		dists := rb.distributions(c, group, sums, counts)
		for g, i := range group {
			lo, hi := Percentiles(dists[g], rb.Level)
			out[i] = Interval{Estimate: ratio(sums[i], counts[i]), Low: lo, High: hi}
		}
	}
	return out, nil
}

// distributions is Distribution of sums[i], counts[i] for every i of
// group, all with c clusters, drawn once: each statistic adds its values
// in the order Distribution adds them, so each is the same float.
func (b Bootstrap) distributions(c int, group []int, sums [][]float64, counts [][]int) [][]float64 {
	m := len(group)
	s := make([]float64, c*m) // cluster k's values of the m requests at k*m
	n := make([]int, c*m)
	for g, i := range group {
		for k := range c {
			s[k*m+g], n[k*m+g] = sums[i][k], counts[i][k]
		}
	}
	out := make([][]float64, m)
	for g := range out {
		out[g] = make([]float64, b.Resamples)
	}
	acc, num := make([]float64, m), make([]int, m)
	rng := rand.NewPCG(b.Seed, bootStream)
	for r := range b.Resamples {
		clear(acc)
		clear(num)
		for range c {
			k := intN(rng, uint64(c)) * m
			vs, ns := s[k:k+m], n[k:k+m]
			for g := range acc {
				acc[g] += vs[g]
				num[g] += ns[g]
			}
		}
		for g := range out {
			out[g][r] = acc[g] / float64(num[g])
		}
	}
	for _, d := range out {
		slices.Sort(d)
	}
	return out
}
