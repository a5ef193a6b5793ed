package sim

import (
	"fmt"
	"maps"
	"math"
	"slices"
)

// Hand-set coefficients of the simulator's confidence signal: the
// transcripts hold no confidence score, so Calibrate cannot fit them and
// keeps these.
const (
	handConfRight      = 1.4
	handConfAttractor  = 0.4
	handConfOther      = -0.6
	handConfDifficulty = 1.2
	handConfConsensus  = 0.6
	handConfNoise      = 0.9
	handOverconfidence = 2.3
	handStatedShift    = 1.0
	handStatedNoise    = 0.5
	handSolveSlope     = 6.0
	handDifficultyMean = 0.5
	handAttractorJit   = 0.25
)

// Fit fits the simulator's parameters to the statistics of real
// debates (package documentation, "Calibration"). It is deterministic. It
// fails when the statistics hold no episode, no revision of a wrong answer
// or none of a right one.
func Fit(real *DebateStats) (Params, error) {
	switch {
	case real.Episodes == 0:
		return Params{}, fmt.Errorf("sim: calibrate: no episode with a gold answer")
	case real.fixTrials == 0 || real.breakTrials == 0:
		return Params{}, fmt.Errorf("sim: calibrate: %d revisions of wrong answers and %d of right ones: need some of each",
			real.fixTrials, real.breakTrials)
	}
	p := Params{
		SolveSlope: handSolveSlope, DifficultyMean: handDifficultyMean, AttractorJitter: handAttractorJit,
		ConfRight: handConfRight, ConfAttractor: handConfAttractor, ConfOther: handConfOther,
		ConfDifficulty: handConfDifficulty, ConfConsensus: handConfConsensus, ConfNoise: handConfNoise,
		Overconfidence: handOverconfidence, StatedShift: handStatedShift, StatedNoise: handStatedNoise,
	}
	p.Unreadable = ratio(float64(real.Unreadable-real.revUnreadable), float64(real.Answers-real.revisions), 0)
	p.RevisionUnreadable = ratio(float64(real.revUnreadable), float64(real.revisions), 0)
	p.UnreadableCorrelation = unreadableCorrelation(real.unreadTeams)
	p.Skill, p.DifficultySpread = fitRoundZero(real.Teams, p.Unreadable)
	p.Attractor = fitAttractor(real.WrongPairsSame, real.WrongPairs)

	// Revisions: logistic regressions on the grouped counts. Difficulty
	// enters only through the peers (FixSkill = BreakGap = 0): the
	// transcripts say nothing of a question's difficulty but what the team
	// answers.
	var fx [][]float64
	var fk, fn []float64
	for _, key := range sortedKeys3(real.fix) {
		b := real.fix[key]
		fx = append(fx, []float64{1, float64(key[1]) / nonZero(key[0]), float64(key[2]) / nonZero(key[0]),
			indicator(key[0] > 0 && key[1] == key[0])})
		fk, fn = append(fk, float64(b.k)), append(fn, float64(b.n))
	}
	beta := logistic(fx, fk, fn)
	p.FixBase, p.FixGold, p.FixSame, p.FixAllGold = beta[0], beta[1], beta[2], beta[3]
	var bx [][]float64
	var bk, bn []float64
	for _, key := range sortedKeys2(real.brk) {
		b := real.brk[key]
		bx = append(bx, []float64{1, float64(key[1]) / nonZero(key[0]), indicator(key[0] > 0 && key[1] == key[0])})
		bk, bn = append(bk, float64(b.k)), append(bn, float64(b.n))
	}
	beta = logistic(bx, bk, bn)
	p.BreakBase, p.BreakWrong, p.BreakAllWrong = beta[0], beta[1], beta[2]
	p.Conform = clamp01(ratio(real.conformed, real.conformShare, 0))
	p.KeepWrong = clamp01(ratio(float64(real.kept), float64(real.keepTrials), 0.5))
	p.BreakTo = clamp01(ratio(float64(real.brokeToTop), float64(real.brokeWithTop), 0.5))

	// The spread of the log, and the mean that keeps the plain mean: the
	// cost is what must match.
	ln := func(phase, c int) LogNormal {
		sd := real.tokens[phase][c].sd()
		m := real.rawTokens[phase][c].mean()
		if m <= 0 {
			return LogNormal{0, 0}
		}
		return LogNormal{math.Log(m) - sd*sd/2, sd}
	}
	p.TokensRight, p.TokensWrong = ln(0, 1), ln(0, 0)
	p.RevisionTokensRight, p.RevisionTokensWrong = ln(1, 1), ln(1, 0)
	p.StepsSpread = max(dispersion(&real.stepsM[0]), dispersion(&real.stepsM[1]))
	p.HedgesSpread = max(dispersion(&real.hedgesM[0]), dispersion(&real.hedgesM[1]))
	p.StepsRight = ratio(real.steps[1], real.counted[1], 0)
	p.StepsWrong = ratio(real.steps[0], real.counted[0], 0)
	p.HedgesRight = ratio(real.hedges[1], real.counted[1], 0)
	p.HedgesWrong = ratio(real.hedges[0], real.counted[0], 0)
	p.StatedRate = float64(real.stated) / float64(real.Answers)
	p.Question = LogNormal{real.question.mean(), real.question.sd()}
	c := leastSquares(real.xtx, real.xty)
	p.PromptBase, p.PromptQuestion, p.PromptOwn, p.PromptPeers = c[0], c[1], c[2], c[3]
	round := func(x *float64) { *x = math.Round(*x*1e6) / 1e6 }
	for _, x := range []*float64{&p.Skill, &p.DifficultySpread, &p.Unreadable, &p.RevisionUnreadable, &p.UnreadableCorrelation, &p.Attractor, &p.FixBase,
		&p.FixGold, &p.FixSame, &p.FixAllGold, &p.BreakAllWrong, &p.Conform, &p.KeepWrong, &p.BreakBase, &p.BreakWrong, &p.BreakTo,
		&p.TokensRight.LogMean, &p.TokensRight.LogSD, &p.TokensWrong.LogMean, &p.TokensWrong.LogSD,
		&p.RevisionTokensRight.LogMean, &p.RevisionTokensRight.LogSD, &p.RevisionTokensWrong.LogMean, &p.RevisionTokensWrong.LogSD,
		&p.StepsRight, &p.StepsWrong, &p.HedgesRight, &p.HedgesWrong, &p.StepsSpread, &p.HedgesSpread, &p.StatedRate,
		&p.Question.LogMean, &p.Question.LogSD, &p.PromptBase, &p.PromptQuestion, &p.PromptOwn, &p.PromptPeers} {
		round(x)
	}
	return p, p.Check()
}

// fitRoundZero returns the skill and difficulty spread (difficulty mean ½,
// slope 6) that maximise the likelihood of the round-0 right counts per
// team, every answer also unreadable with probability u: a grid search,
// coarse then fine.
func fitRoundZero(teams map[int]map[int]int, u float64) (skill, spread float64) {
	type cell struct{ n, k, c int }
	var cells []cell
	for _, n := range slices.Sorted(maps.Keys(teams)) {
		for _, k := range slices.Sorted(maps.Keys(teams[n])) {
			cells = append(cells, cell{n, k, teams[n][k]})
		}
	}
	// Quadrature over the standard normal.
	const nodes = 81
	var z, wz [nodes]float64
	sum := 0.0
	for i := range nodes {
		z[i] = -5 + 10*float64(i)/(nodes-1)
		wz[i] = math.Exp(-z[i] * z[i] / 2)
		sum += wz[i]
	}
	for i := range wz {
		wz[i] /= sum
	}
	loglik := func(sk, sp float64) float64 {
		var pz [nodes]float64
		for i := range nodes {
			pz[i] = sigmoid(handSolveSlope*(sk-handDifficultyMean-sp*z[i])) * (1 - u)
		}
		ll := 0.0
		for _, c := range cells {
			l := 0.0
			for i := range nodes {
				l += wz[i] * math.Pow(pz[i], float64(c.k)) * math.Pow(1-pz[i], float64(c.n-c.k))
			}
			ll += float64(c.c) * math.Log(max(l, 1e-300))
		}
		return ll
	}
	best := math.Inf(-1)
	search := func(sk0, sk1, sp0, sp1, step float64) {
		for sk := sk0; sk <= sk1+1e-12; sk += step {
			for sp := max(0, sp0); sp <= sp1+1e-12; sp += step {
				if ll := loglik(sk, sp); ll > best {
					best, skill, spread = ll, sk, sp
				}
			}
		}
	}
	search(-1.5, 2.5, 0, 2, 0.02)
	search(skill-0.02, skill+0.02, spread-0.02, spread+0.02, 0.001)
	return skill, spread
}

// fitAttractor returns the attractor share A whose chance that two wrong
// answers agree, E[A² + (1−A)²/(K−1)] with K = DefaultWrongAnswers and A
// jittered by ±handAttractorJit/2, is the observed one.
func fitAttractor(same, pairs int) float64 {
	k := float64(DefaultWrongAnswers)
	if pairs == 0 {
		return 1 / k
	}
	q := float64(same) / float64(pairs)
	// (1 + 1/(k−1))·A² − 2A/(k−1) + 1/(k−1) + J²/12·(1 + 1/(k−1)) = q
	a2 := 1 + 1/(k-1)
	a1 := -2 / (k - 1)
	a0 := 1/(k-1) + handAttractorJit*handAttractorJit/12*a2 - q
	disc := a1*a1 - 4*a2*a0
	if disc <= 0 {
		return 1 / k
	}
	return clamp01((-a1 + math.Sqrt(disc)) / (2 * a2))
}

// logistic fits P(success) = σ(β·x) to grouped counts (k successes of n
// trials at x) by Newton's method with a small ridge, so that a separable
// or empty group cannot send β to infinity.
func logistic(x [][]float64, k, n []float64) []float64 {
	d := len(x[0])
	beta := make([]float64, d)
	const ridge = 1e-3
	for range 100 {
		g := make([]float64, d)
		h := make([][]float64, d)
		for a := range h {
			h[a] = make([]float64, d)
			h[a][a] = ridge
			g[a] = -ridge * beta[a]
		}
		for i := range x {
			eta := 0.0
			for a := range d {
				eta += beta[a] * x[i][a]
			}
			p := sigmoid(eta)
			for a := range d {
				g[a] += (k[i] - n[i]*p) * x[i][a]
				for b := range d {
					h[a][b] += n[i] * p * (1 - p) * x[i][a] * x[i][b]
				}
			}
		}
		step := solve(h, g)
		done := true
		for a := range d {
			beta[a] += step[a]
			if math.Abs(step[a]) > 1e-10 {
				done = false
			}
		}
		if done {
			break
		}
	}
	return beta
}

// leastSquares solves the normal equations xtx·c = xty, with a tiny ridge
// against a singular design.
func leastSquares(xtx [4][4]float64, xty [4]float64) [4]float64 {
	h := make([][]float64, 4)
	for a := range h {
		h[a] = slices.Clone(xtx[a][:])
		h[a][a] += 1e-9 * (1 + xtx[a][a])
	}
	c := solve(h, xty[:])
	return [4]float64{c[0], c[1], c[2], c[3]}
}

// solve solves h·x = g by Gaussian elimination with partial pivoting; h
// and g are left changed. A zero pivot gives a zero component.
func solve(h [][]float64, g []float64) []float64 {
	n := len(g)
	g = slices.Clone(g)
	for c := range n {
		p := c
		for r := c + 1; r < n; r++ {
			if math.Abs(h[r][c]) > math.Abs(h[p][c]) {
				p = r
			}
		}
		h[c], h[p] = h[p], h[c]
		g[c], g[p] = g[p], g[c]
		if h[c][c] == 0 {
			continue
		}
		for r := c + 1; r < n; r++ {
			f := h[r][c] / h[c][c]
			for k := c; k < n; k++ {
				h[r][k] -= f * h[c][k]
			}
			g[r] -= f * g[c]
		}
	}
	x := make([]float64, n)
	for c := n - 1; c >= 0; c-- {
		if h[c][c] == 0 {
			continue
		}
		s := g[c]
		for k := c + 1; k < n; k++ {
			s -= h[c][k] * x[k]
		}
		x[c] = s / h[c][c]
	}
	return x
}

func sortedKeys3(m map[[3]int]*binom) [][3]int {
	ks := make([][3]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b [3]int) int { return slices.Compare(a[:], b[:]) })
	return ks
}

func sortedKeys2Int(m map[[2]int]int) [][2]int {
	ks := make([][2]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b [2]int) int { return slices.Compare(a[:], b[:]) })
	return ks
}

func sortedKeys2(m map[[2]int]*binom) [][2]int {
	ks := make([][2]int, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.SortFunc(ks, func(a, b [2]int) int { return slices.Compare(a[:], b[:]) })
	return ks
}

// dispersion is the log-scale spread s of a Poisson count whose mean is
// multiplied by exp(s·N(0,1) − s²/2), matched to m's variance:
// Var = μ + μ²·(exp(s²) − 1).
func dispersion(m *moments) float64 {
	mu, sd := m.mean(), m.sd()
	if mu <= 0 {
		return 0
	}
	extra := (sd*sd - mu) / (mu * mu)
	if extra <= 0 {
		return 0
	}
	return math.Sqrt(math.Log1p(extra))
}

func indicator(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

func nonZero(n int) float64 { return float64(max(n, 1)) }

func ratio(a, b, empty float64) float64 {
	if b == 0 {
		return empty
	}
	return a / b
}

func clamp01(x float64) float64 { return min(1, max(0, x)) }
