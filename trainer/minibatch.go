package trainer

import (
	"math/rand/v2"

	"github.com/mpdf/mpdf/nn"
)

// minibatcher packs the groups of a rollout batch, shuffled, into
// minibatches of whole groups, so that the per-group advantages of a
// minibatch equal those of the rollout batch. Its buffers are reused.
type minibatcher struct {
	order   []int
	rows    []int32   // the rows of every minibatch, one after another
	batches [][]int32 // views of rows
	groups  [][]int   // the groups of each minibatch, in order: views of order
}

// pack shuffles the groups of g with rng (the permutation rng.Perm would
// draw) and packs them, whole, into minibatches of at least size rows (the
// last may be smaller). The result is valid until the next call.
func (mb *minibatcher) pack(g *grouping, size int, rng *rand.Rand) [][]int32 {
	n := g.len()
	mb.order = grow(mb.order, n)
	for i := range mb.order {
		mb.order[i] = i
	}
	rng.Shuffle(n, func(i, j int) { mb.order[i], mb.order[j] = mb.order[j], mb.order[i] })
	mb.rows, mb.batches, mb.groups = mb.rows[:0], mb.batches[:0], mb.groups[:0]
	start, first := 0, 0
	for i, k := range mb.order {
		mb.rows = append(mb.rows, g.members(k)...)
		if len(mb.rows)-start >= size {
			mb.batches = append(mb.batches, mb.rows[start:len(mb.rows):len(mb.rows)])
			mb.groups = append(mb.groups, mb.order[first:i+1])
			start, first = len(mb.rows), i+1
		}
	}
	if len(mb.rows) > start {
		mb.batches = append(mb.batches, mb.rows[start:])
		mb.groups = append(mb.groups, mb.order[first:])
	}
	return mb.batches
}

// gather copies rows of src into dst, reusing dst's storage. A group's rows
// are usually consecutive in src, so runs of consecutive rows are copied
// column by column, as slices.
func gather(dst, src *Samples, rows []int32, features int) {
	dst.Features = dst.Features[:0]
	dst.Actions = dst.Actions[:0]
	dst.Rewards = dst.Rewards[:0]
	dst.Groups = dst.Groups[:0]
	dst.LogProb = dst.LogProb[:0]
	dst.RefLogProb = dst.RefLogProb[:0]
	dst.Adv = dst.Adv[:0]
	dst.Nets = dst.Nets[:0]
	for i := 0; i < len(rows); {
		lo := int(rows[i])
		hi := lo + 1
		for i++; i < len(rows) && int(rows[i]) == hi; i++ {
			hi++
		}
		dst.Features = append(dst.Features, src.Features[lo*features:hi*features]...)
		dst.Actions = append(dst.Actions, src.Actions[lo:hi]...)
		dst.Rewards = append(dst.Rewards, src.Rewards[lo:hi]...)
		dst.Groups = append(dst.Groups, src.Groups[lo:hi]...)
		if src.LogProb != nil {
			dst.LogProb = append(dst.LogProb, src.LogProb[lo:hi]...)
		}
		if src.Adv != nil {
			dst.Adv = append(dst.Adv, src.Adv[lo:hi]...)
		}
		if src.Nets != nil {
			dst.Nets = append(dst.Nets, src.Nets[lo:hi]...)
		}
		if src.RefLogProb != nil {
			dst.RefLogProb = append(dst.RefLogProb, src.RefLogProb[lo*nn.NumActions:hi*nn.NumActions]...)
		}
	}
	if src.RefLogProb == nil {
		dst.RefLogProb = nil
	}
	if src.LogProb == nil {
		dst.LogProb = nil
	}
	if src.Adv == nil {
		dst.Adv = nil
	}
	if src.Nets == nil {
		dst.Nets = nil
	}
}
