package nn

import (
	"fmt"
	"math"
)

// The loss forms of LossConfig.Kind (design §4).
const (
	// LossClip is the PPO-clip surrogate on the advantages plus β·KL, the
	// default. The empty Kind means it too, so that configurations written
	// before Kind existed read as what they ran.
	LossClip = "clip"
	// LossRankMatch regresses the group-centred implicit reward
	// h = β·log π_θ(a|x)/π_ref(a|x) onto the advantages with squared error:
	// the paper's rank-matching loss.
	LossRankMatch = "rank-match"
)

// ParseLossKind maps a loss name to the LossConfig.Kind that stores it:
// "clip" to "" (the default, written as before Kind existed), "rank-match"
// to itself.
func ParseLossKind(name string) (string, error) {
	switch name {
	case LossClip, "":
		return "", nil
	case LossRankMatch:
		return LossRankMatch, nil
	}
	return "", fmt.Errorf("loss %q: want %s or %s", name, LossClip, LossRankMatch)
}

// LossName is the name of a LossConfig.Kind: "clip" for the empty Kind.
func LossName(kind string) string {
	if kind == "" {
		return LossClip
	}
	return kind
}

// RankMatch reports whether c is the rank-matching loss.
func (c LossConfig) RankMatch() bool { return c.Kind == LossRankMatch }

// The rank-matching loss (design §4), per batch of B rows in groups g:
//
//	h_i  = β·(log π_θ(a_i|x_i) − log π_ref(a_i|x_i))
//	hc_i = h_i − mean_{j∈g(i)} h_j          centred within the row's group
//	e_i  = hc_i − A_i
//	loss = (1/B)·Σ_i e_i² − c_H·mean H       no separate KL term: β already
//	                                         ties h to π_ref
//
// Its gradient with respect to the taken action's log-probability is
// ∂loss/∂lp_i = (2β/B)·(e_i − mean_{j∈g(i)} e_j): the centring's own
// derivative subtracts the group mean of the residuals. The centring is
// over the rows of the batch; the trainer's minibatches hold whole groups
// (trainer/minibatch.go), so a batch's group is the rollout's group.

// RankMatchCoef writes into coef (len B) each row's ∂(B·loss)/∂lp_i of the
// rank-matching loss of b, whose rows' taken-action log-probabilities are
// lpa (each by the network that acts for the row), and returns Σ_i e_i²
// (B·policy_loss). b needs Actions, Adv, RefLogp and Group (checked as
// CheckShape checks them, with a group index for every row). It is how a
// caller training several networks on one batch (trainer's decoupled
// agents) centres across them: the coefficients, sliced per network, go
// into Batch.Coef.
func RankMatchCoef[T Float](coef, lpa []float64, b *Batch[T], beta float64) (float64, error) {
	n := b.Len()
	switch {
	case n == 0 || len(coef) != n || len(lpa) != n || len(b.Adv) != n || len(b.RefLogp) != n*NumActions || len(b.Group) != n:
		return 0, fmt.Errorf("nn: RankMatchCoef: %d coefficients, %d log-probabilities, %d advantages, %d reference log-probabilities, %d groups for %d rows",
			len(coef), len(lpa), len(b.Adv), len(b.RefLogp), len(b.Group), n)
	case !(beta > 0):
		return 0, fmt.Errorf("nn: RankMatchCoef: beta %v, want > 0", beta)
	}
	for i, g := range b.Group {
		if g < 0 || int(g) >= n || b.Actions[i] >= NumActions {
			return 0, fmt.Errorf("nn: RankMatchCoef: row %d: group %d (want [0, %d)), action %d", i, g, n, b.Actions[i])
		}
	}
	return rankMatchCoef(coef, lpa, b, beta, &rankScratch{}), nil
}

// rankScratch holds rankMatchCoef's per-group sums, reused.
type rankScratch struct {
	hsum, esum []float64
	count      []int32
}

// rankMatchCoef writes into coef (len B) ∂(B·loss)/∂lp_i for each row, given
// lpa, the log-probability of each row's action, and returns Σ_i e_i².
// Rows of one group are summed in row order, so the result does not depend
// on how rows are split between workers.
func rankMatchCoef[T Float](coef, lpa []float64, b *Batch[T], beta float64, sc *rankScratch) float64 {
	n := b.Len()
	sc.hsum = growF(sc.hsum, n)
	sc.esum = growF(sc.esum, n)
	if cap(sc.count) < n {
		sc.count = make([]int32, n)
	}
	sc.count = sc.count[:n]
	clear(sc.hsum)
	clear(sc.esum)
	clear(sc.count)
	for i := 0; i < n; i++ {
		a := int(b.Actions[i])
		h := beta * (lpa[i] - float64(b.RefLogp[i*NumActions+a]))
		coef[i] = h
		g := b.Group[i]
		sc.hsum[g] += h
		sc.count[g]++
	}
	sq := 0.0
	for i := 0; i < n; i++ {
		g := b.Group[i]
		e := coef[i] - sc.hsum[g]/float64(sc.count[g]) - float64(b.Adv[i])
		coef[i] = e
		sc.esum[g] += e
		sq += e * e
	}
	for i := 0; i < n; i++ {
		g := b.Group[i]
		coef[i] = 2 * beta * (coef[i] - sc.esum[g]/float64(sc.count[g]))
	}
	return sq
}

func growF(s []float64, n int) []float64 {
	if cap(s) < n {
		return make([]float64, n)
	}
	return s[:n]
}

// checkGroups panics unless b carries a group index in [0, B) for every row
// (the rank-matching loss centres within groups), or its coefficients.
func checkGroups[T Float](op string, b *Batch[T]) {
	n := b.Len()
	if b.Coef != nil {
		if len(b.Coef) != n {
			panic(fmt.Sprintf("nn: %s: %d rank-match coefficients for %d rows", op, len(b.Coef), n))
		}
		return
	}
	if len(b.Group) != n {
		panic(fmt.Sprintf("nn: %s: rank-match loss needs a group index per row: %d for %d rows", op, len(b.Group), n))
	}
	for i, g := range b.Group {
		if g < 0 || int(g) >= n {
			panic(fmt.Sprintf("nn: %s: row %d: group index %d outside [0, %d)", op, i, g, n))
		}
	}
}

// rankRows is the rank-matching loss kernel of one tile, lossRows's
// counterpart: coef holds each batch row's ∂(B·loss)/∂lp[a] (rankMatchCoef).
// It writes ∂loss/∂z into dz and adds the rows' KL (reported, not in the
// loss) and entropy to s; the squared errors were summed by rankMatchCoef.
// It is portable Go on every build: the cross-row centring runs before the
// tiles, and what is left per row is a softmax and a few products.
func rankRows[T Float](dz, z []T, ld int, b *Batch[T], coef []float64, r0, rows int, cfg LossConfig, invB float64, s *lossSums) {
	cH := cfg.Entropy
	var acc lossSums
	for r := 0; r < rows; r++ {
		p0, p1, p2, l0, l1, l2 := softmax3(z[r*ld : r*ld+NumActions])

		i := r0 + r
		ref := b.RefLogp[i*NumActions : i*NumActions+NumActions]
		kl := p0*(l0-float64(ref[0])) + p1*(l1-float64(ref[1])) + p2*(l2-float64(ref[2]))
		ent := -(p0*l0 + p1*l1 + p2*l2)

		dLp := coef[i]
		g0 := cH*p0*(l0+ent) - dLp*p0
		g1 := cH*p1*(l1+ent) - dLp*p1
		g2 := cH*p2*(l2+ent) - dLp*p2
		putRowGrad(dz[r*ld:(r+1)*ld], g0, g1, g2, b.Actions[i], dLp, invB)
		acc.kl += kl
		acc.ent += ent
	}
	s.add(acc)
}

// rankMatchRef is LossAndGradRef for the rank-matching loss: the formulas
// above, row by row in float64.
func rankMatchRef[T Float](grad []T, m *MLP[T], b *Batch[T], cfg LossConfig) LossStats {
	checkGroups("LossAndGradRef", b)
	n := b.Len()
	acts := make([][][]float64, n)
	lps := make([][]float64, n)
	lpa := make([]float64, n)
	for r := 0; r < n; r++ {
		acts[r] = forwardRow(m, b.X[r*m.In():(r+1)*m.In()])
		z := acts[r][len(acts[r])-1]
		lps[r] = make([]float64, NumActions)
		LogSoftmaxTo(lps[r], z)
		lpa[r] = lps[r][b.Actions[r]]
	}
	coef, sq := b.Coef, 0.0
	if coef == nil {
		coef = make([]float64, n)
		sq = rankMatchCoef(coef, lpa, b, cfg.Beta, &rankScratch{})
	}
	g := make([]float64, len(grad))
	var st LossStats
	for r := 0; r < n; r++ {
		lp := lps[r]
		ref := b.RefLogp[r*NumActions : (r+1)*NumActions]
		p := make([]float64, NumActions)
		kl, ent := 0.0, 0.0
		for i := range p {
			p[i] = math.Exp(lp[i])
			kl += p[i] * (lp[i] - float64(ref[i]))
			ent -= p[i] * lp[i]
		}
		dz := make([]float64, NumActions)
		for i := range dz {
			onehot := 0.0
			if i == int(b.Actions[r]) {
				onehot = 1
			}
			dz[i] = (coef[r]*(onehot-p[i]) + cfg.Entropy*p[i]*(lp[i]+ent)) / float64(n)
		}
		backwardRow(g, m, acts[r], dz)
		st.KL += kl
		st.Entropy += ent
	}
	for i, v := range g {
		grad[i] = T(v)
	}
	fn := float64(n)
	st.PolicyLoss = sq / fn
	st.KL /= fn
	st.Entropy /= fn
	st.Loss = st.PolicyLoss - cfg.Entropy*st.Entropy
	return st
}
