package trainer

// Groups are keyed by exact string (design §3's group key, by default the task
// id); "" is a key like any other, and a group may hold any number of rows.
// A group of one gets advantage 0 from every estimator but reinforce.
// Groups are processed in order of first appearance, so results never depend
// on map order.

import (
	"fmt"
	"math"
)

// GroupAdvantages writes into dst the advantages of rewards, computed by est
// separately for each group of rows sharing a key in groups (design §3: all
// decisions about the same task compete). Keys are compared as exact
// strings; "" is a key like any other. Errors name the row or the group.
func GroupAdvantages(dst, rewards []float64, groups []string, est Estimator) error {
	var g grouping
	if err := g.check(dst, rewards, groups, est); err != nil {
		return err
	}
	g.build(groups)
	return g.advantages(dst, rewards, est)
}

// grouping partitions the rows of a batch by group key. Groups are numbered
// in order of first appearance and rows keep their order within a group, so
// the result does not depend on map iteration. Its buffers are reused.
type grouping struct {
	index keyTable
	keys  []string // group → key
	count []int    // group → rows; then start offsets
	start []int    // group g's rows are rows[start[g]:start[g+1]]
	rows  []int32  // row indices ordered by group
	id    []int32  // row → group
	// contig: every group's rows are one run, the groups in row order, so
	// rows is the identity and a group's rows are the slice
	// [start[g], start[g+1]) of the batch's (a minibatch of whole groups,
	// a rollout batch).
	contig bool
	rbuf   []float64
	abuf   []float64
}

func (g *grouping) check(dst, rewards []float64, groups []string, est Estimator) error {
	switch {
	case est == nil:
		return fmt.Errorf("trainer: advantages: nil estimator")
	case len(rewards) == 0:
		return fmt.Errorf("trainer: advantages: no rewards")
	case len(dst) != len(rewards):
		return fmt.Errorf("trainer: advantages: len(dst)=%d for %d rewards", len(dst), len(rewards))
	case len(groups) != len(rewards):
		return fmt.Errorf("trainer: advantages: %d group keys for %d rewards", len(groups), len(rewards))
	}
	for i, r := range rewards {
		if math.IsNaN(r) || math.IsInf(r, 0) {
			return fmt.Errorf("trainer: advantages: row %d: reward is %v", i, r)
		}
	}
	return nil
}

// build partitions the rows by key (a counting sort).
func (g *grouping) build(groups []string) {
	g.index.reset()
	g.count = g.count[:0]
	g.rows = grow(g.rows, len(groups))
	// A group's rows are usually contiguous (minibatches are built of
	// whole groups): a key equal to the last row's skips the map.
	ids := g.ids(len(groups))
	// A run's rows are counted when it ends: an increment of g.count a row
	// is a chain through memory.
	last, run := int32(-1), 0
	var key runKey
	g.contig = true
	for i, k := range groups {
		if last >= 0 && key.same(k) {
			ids[i] = last
			continue
		}
		if last >= 0 {
			g.count[last] += i - run
		}
		id, found := g.index.index(k)
		if found {
			g.contig = false // a group's second run
		} else {
			g.count = append(g.count, 0)
		}
		ids[i], last, run = id, id, i
		key.set(k)
	}
	if last >= 0 {
		g.count[last] += len(groups) - run
	}
	g.keys = g.index.keys
	ng := len(g.keys)
	g.start = grow(g.start, ng+1)
	g.start[0] = 0
	for i, c := range g.count {
		g.start[i+1] = g.start[i] + c
		g.count[i] = g.start[i] // next free slot
	}
	if g.contig { // the counting sort would write the identity
		for i := range g.rows {
			g.rows[i] = int32(i)
		}
		return
	}
	for i, id := range ids {
		g.rows[g.count[id]] = int32(i)
		g.count[id]++
	}
}

// buildRuns is build for groupStats alone: when every group is one run (as
// in a minibatch of whole groups) it finds only the runs, with no row →
// group index and no row order (rows and id are left empty, so a use of
// them fails loudly); otherwise it is build.
func (g *grouping) buildRuns(groups []string) {
	g.index.reset()
	g.count = g.count[:0]
	g.start = append(g.start[:0], 0)
	var run runKey
	for i, k := range groups {
		if i > 0 && run.same(k) {
			continue
		}
		if _, found := g.index.index(k); found {
			g.build(groups)
			return
		}
		if i > 0 {
			g.start = append(g.start, i)
		}
		run.set(k)
	}
	g.start = append(g.start, len(groups))
	g.keys, g.contig = g.index.keys, true
	g.rows, g.id = g.rows[:0], g.id[:0]
}

// ids returns the row → group buffer for n rows.
func (g *grouping) ids(n int) []int32 {
	g.id = grow(g.id, n)
	return g.id
}

// len is the number of groups.
func (g *grouping) len() int { return len(g.keys) }

// members returns the rows of group i.
func (g *grouping) members(i int) []int32 { return g.rows[g.start[i]:g.start[i+1]] }

// advantages runs est on each group and scatters the results into dst.
func (g *grouping) advantages(dst, rewards []float64, est Estimator) error {
	for i := range g.len() {
		rows := g.members(i)
		g.rbuf, g.abuf = grow(g.rbuf, len(rows)), grow(g.abuf, len(rows))
		for k, r := range rows {
			g.rbuf[k] = rewards[r]
		}
		if err := est.Advantages(g.abuf, g.rbuf); err != nil {
			return fmt.Errorf("trainer: advantages: group %q: %w", g.keys[i], err)
		}
		for k, r := range rows {
			dst[r] = g.abuf[k]
		}
	}
	return nil
}

// groupStats are the reward statistics of design §4 that depend on the groups:
// the mean over groups of their population std, and the share of groups
// whose rewards all tie (range ≤ 1e-12, where SoftRankPO gives zeros; a
// group of one counts).
func (g *grouping) groupStats(rewards []float64) (stdMean, fracZero float64) {
	zero := 0
	for i := 0; i < g.len(); i++ {
		if g.contig && i+1 < g.len() && g.start[i+1]-g.start[i] == g.start[i+2]-g.start[i+1] {
			// Two groups of a size side by side: their chains of adds
			// interleave. The sums stay in group order.
			sd, z, sd2, z2, ok := groupStat2(rewards[g.start[i]:g.start[i+1]], rewards[g.start[i+1]:g.start[i+2]])
			if ok {
				stdMean += sd
				stdMean += sd2
				zero += b2i(z) + b2i(z2)
				i++
				continue
			}
		}
		sd, z := g.groupStat(i, rewards)
		stdMean += sd
		zero += b2i(z)
	}
	n := float64(g.len())
	return stdMean / n, float64(zero) / n
}

// groupStat is group i's population std of rewards and whether its rewards
// all tie.
func (g *grouping) groupStat(i int, rewards []float64) (sd float64, zero bool) {
	// A contiguous group is read in place, not gathered.
	var r []float64
	if g.contig {
		r = rewards[g.start[i]:g.start[i+1]]
	} else {
		rows := g.members(i)
		g.rbuf = grow(g.rbuf, len(rows))
		r = g.rbuf
		for k, j := range rows {
			r[k] = rewards[j]
		}
	}
	// One pass finds the range, in two lanes (Go's min and max are chains
	// of four instructions); the rewards are finite, so meanStd's largest
	// magnitude is max(hi, −lo), the same value (min and max do not depend
	// on the order).
	lo, hi, lo2, hi2 := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	k := 0
	for ; k+2 <= len(r); k += 2 {
		lo, hi = min(lo, r[k]), max(hi, r[k])
		lo2, hi2 = min(lo2, r[k+1]), max(hi2, r[k+1])
	}
	if k < len(r) {
		lo, hi = min(lo, r[k]), max(hi, r[k])
	}
	lo, hi = min(lo, lo2), max(hi, hi2)
	_, sd, e := scaledMeanStdMax(r, max(hi, -lo))
	return math.Ldexp(sd, e), hi-lo <= rangeEps
}

// groupStat2 is groupStat of two groups of one size, a and b, read in place,
// their loops fused; ok is false, and nothing computed, when either needs
// scaledMeanStdMax's special cases (all zeros, or Ldexp's scaling).
func groupStat2(a, b []float64) (sdA float64, zA bool, sdB float64, zB bool, ok bool) {
	b = b[:len(a)]
	// The range by compares, not Go's min and max (chains of four
	// instructions): the rewards are finite, and which zero an extreme is
	// changes neither hi − lo nor, past the zero test, the exponent.
	loA, hiA, loB, hiB := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for k, v := range a {
		w := b[k]
		if v < loA {
			loA = v
		}
		if v > hiA {
			hiA = v
		}
		if w < loB {
			loB = w
		}
		if w > hiB {
			hiB = w
		}
	}
	eA, invA, scaleA, okA := pow2Exp(max(hiA, -loA))
	eB, invB, scaleB, okB := pow2Exp(max(hiB, -loB))
	if !okA || !okB {
		return 0, false, 0, false, false
	}
	// scaledMeanStdMax's exact branch, twice over; float64(·) rounds the
	// scaled value, a φ of two branches there, should a build fuse
	// multiply-adds (GOAMD64=v3).
	fA, fB := invA, invB
	muA, muB := 0.0, 0.0
	for k, v := range a {
		muA += float64(v * fA)
		muB += float64(b[k] * fB)
	}
	n := float64(len(a))
	muA /= n
	muB /= n
	ssA, ssB := 0.0, 0.0
	for k, v := range a {
		dA, dB := float64(v*fA)-muA, float64(b[k]*fB)-muB
		ssA += dA * dA // fused or not as scaledMeanStdMax's
		ssB += dB * dB
	}
	sdA, sdB = ldexpBy(math.Sqrt(ssA/n), eA, scaleA), ldexpBy(math.Sqrt(ssB/n), eB, scaleB)
	return sdA, hiA-loA <= rangeEps, sdB, hiB-loB <= rangeEps, true
}

// pow2Exp returns math.Frexp(amax)'s exponent e and 2^−e and 2^e, built
// from amax's bits instead of calls to Frexp and Ldexp (three a group, as
// much as its sums); ok is false unless amax is normal and both powers are
// normal too (e in [−1021, 1022]), cases left to the calls.
func pow2Exp(amax float64) (e int, inv, scale float64, ok bool) {
	biased := int(math.Float64bits(amax) >> 52 & 0x7ff)
	e = biased - 1022
	if biased == 0 || biased == 0x7ff || e < -1021 || e > 1022 {
		return 0, 0, 0, false
	}
	return e, math.Float64frombits(uint64(1023-e) << 52), math.Float64frombits(uint64(1023+e) << 52), true
}

// ldexpBy is math.Ldexp(x, e) for x ≥ 0 given scale = 2^e: the product is
// exact unless it is subnormal, which the call rounds.
func ldexpBy(x float64, e int, scale float64) float64 {
	if r := x * scale; x == 0 || r >= 0x1p-1022 {
		return r
	}
	return math.Ldexp(x, e)
}
