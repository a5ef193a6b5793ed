package stats

import (
	"cmp"
	"math"
	"slices"
)

// AUC is the Mann–Whitney estimate of the area under the ROC curve of
// scores xs for labels ys: the probability that the score of a positive
// exceeds that of a negative, ties counting one half (mid-ranks). It is NaN
// when there is no positive or no negative, and when any score is NaN (a
// NaN has no rank). len(ys) must equal len(xs).
func AUC[F ~float32 | ~float64](xs []F, ys []bool) float64 {
	if len(xs) != len(ys) {
		panic("stats: AUC of scores and labels of different lengths")
	}
	if slices.ContainsFunc(xs, func(x F) bool { return x != x }) {
		return math.NaN()
	}
	idx := make([]int, len(xs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(xs[a], xs[b]) })
	pos, rankSum := 0, 0.0
	for lo := 0; lo < len(idx); {
		hi := lo
		for hi < len(idx) && xs[idx[hi]] == xs[idx[lo]] {
			hi++
		}
		mid := float64(lo+hi+1) / 2 // mean 1-based rank of the tie block
		for _, j := range idx[lo:hi] {
			if ys[j] {
				pos++
				rankSum += mid
			}
		}
		lo = hi
	}
	neg := len(xs) - pos
	if pos == 0 || neg == 0 {
		return math.NaN()
	}
	return (rankSum - float64(pos)*float64(pos+1)/2) / (float64(pos) * float64(neg))
}
