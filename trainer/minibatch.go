package trainer

import (
	"math/rand/v2"

	"github.com/mpdf/mpdf/nn"
)

// groupRows lists, for each group key in order of first appearance, the
// rows holding it. Minibatches are built from whole groups, so that the
// per-group advantages of a minibatch equal those of the rollout batch.
func groupRows(groups []string) [][]int {
	index := map[string]int{}
	var rows [][]int
	for i, g := range groups {
		k, ok := index[g]
		if !ok {
			k = len(rows)
			index[g] = k
			rows = append(rows, nil)
		}
		rows[k] = append(rows[k], i)
	}
	return rows
}

// minibatches shuffles the groups with rng and packs them, whole, into
// minibatches of at least size rows (the last may be smaller).
func minibatches(groups [][]int, size int, rng *rand.Rand) [][]int {
	order := rng.Perm(len(groups))
	var out [][]int
	var cur []int
	for _, g := range order {
		cur = append(cur, groups[g]...)
		if len(cur) >= size {
			out = append(out, cur)
			cur = nil
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// gather copies rows of src into dst, reusing dst's storage.
func gather(dst, src *Samples, rows []int, features int) {
	dst.Features = dst.Features[:0]
	dst.Actions = dst.Actions[:0]
	dst.Rewards = dst.Rewards[:0]
	dst.Groups = dst.Groups[:0]
	dst.LogProb = dst.LogProb[:0]
	dst.RefLogProb = dst.RefLogProb[:0]
	for _, r := range rows {
		dst.Features = append(dst.Features, src.Features[r*features:(r+1)*features]...)
		dst.Actions = append(dst.Actions, src.Actions[r])
		dst.Rewards = append(dst.Rewards, src.Rewards[r])
		dst.Groups = append(dst.Groups, src.Groups[r])
		if src.LogProb != nil {
			dst.LogProb = append(dst.LogProb, src.LogProb[r])
		}
		if src.RefLogProb != nil {
			dst.RefLogProb = append(dst.RefLogProb, src.RefLogProb[r*nn.NumActions:(r+1)*nn.NumActions]...)
		}
	}
	if src.RefLogProb == nil {
		dst.RefLogProb = nil
	}
	if src.LogProb == nil {
		dst.LogProb = nil
	}
}
