package env

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// Coefficients of the simulator's model (package documentation, "The
// simulator"). Probabilities are logistic in a score; confidences are
// logistic in a noisy latent.
const (
	solveSlope = 6.0  // round 0: P(right) = σ(solveSlope·(skill − difficulty))
	unreadable = 0.02 // chance that an answer cannot be parsed ("")

	// Refine of a wrong (or unreadable) answer: P(fix) = σ(fixBase +
	// fixSkill·(skill − d) + fixGold·(share of seen peers holding the gold)
	// + fixSame·(share of seen peers sharing the agent's wrong answer)).
	fixBase  = -2.2
	fixSkill = 3.0
	fixGold  = 3.5
	fixSame  = -1.5
	// Not fixed: follow the peers' top wrong answer with chance conform·share,
	// else keep the own answer with chance keepWrong, else another wrong one.
	conform   = 0.5
	keepWrong = 0.6
	// Refine of a right answer: P(break) = σ(breakBase + breakWrong·(share of
	// seen peers on their top wrong answer) + breakGap·(d − skill)).
	breakBase  = -2.9
	breakWrong = 1.5
	breakGap   = 1.5
	breakTo    = 0.7 // a broken answer joins the peers' top wrong answer with this chance

	// Confidence latent: bias + class mean − confDifficulty·(d − ½) +
	// confConsensus·(share of seen peers agreeing) + confNoise·N(0,1).
	confRight      = 1.4
	confAttractor  = 0.4
	confOther      = -0.6
	confDifficulty = 1.2
	confConsensus  = 0.6
	confNoise      = 0.9
	overconfidence = 0.8 // extra latent of the weakest agent over the strongest
	statedShift    = 1.0 // stated confidence is more overconfident ...
	statedNoise    = 0.5 // ... noisier, and rounded to 0.05

	// Tokens: the question, an answer's completion, and the share of a
	// peer's answer that a refine prompt quotes.
	questionTokens = 60
	questionPerD   = 40
	instructTokens = 40
	peerQuote      = 0.6
)

// simGame is one task in progress. Its only state is the episode's rng:
// an agent's hidden correctness is its answer compared with the gold.
type simGame struct {
	s   *Simulator
	t   *simTask
	rng *rand.Rand
}

func (g *simGame) Task() (id, question, gold string) { return g.t.id, g.t.question, g.t.gold }

func (g *simGame) Agents() int { return g.s.cfg.Agents }

func (g *simGame) Initial() ([]data.Turn, error) {
	turns := make([]data.Turn, g.s.cfg.Agents)
	prompt := g.questionTokens()
	for i := range turns {
		ans := g.wrongAnswer()
		if g.rng.Float64() < sigmoid(solveSlope*(g.s.cfg.Skills[i]-g.t.difficulty)) {
			ans = g.t.gold
		}
		turns[i] = g.answer(i, g.garble(ans), 0, prompt)
	}
	return turns, nil
}

func (g *simGame) Step(round, agent int, action metapolicy.Action, prev []data.Turn) (data.Turn, error) {
	n := g.s.cfg.Agents
	switch {
	case round < 1:
		return data.Turn{}, fmt.Errorf("env: simulator: %s: round %d, want ≥ 1", g.t.id, round)
	case agent < 0 || agent >= n:
		return data.Turn{}, fmt.Errorf("env: simulator: %s: agent %d outside [0, %d)", g.t.id, agent, n)
	case len(prev) != n:
		return data.Turn{}, fmt.Errorf("env: simulator: %s: %d previous turns, want %d", g.t.id, len(prev), n)
	}
	switch action {
	case metapolicy.Persist:
		out := keep(&prev[agent])
		return out, nil
	case metapolicy.Concede:
		return g.concede(agent, prev), nil
	case metapolicy.Refine:
		return g.refine(agent, prev), nil
	}
	return data.Turn{}, fmt.Errorf("env: simulator: %s: invalid action %d", g.t.id, uint8(action))
}

// keep copies an agent's state into a new turn that spent nothing.
func keep(t *data.Turn) data.Turn {
	out := data.Turn{Answer: t.Answer, Profile: t.Profile}
	if t.Confidence != nil {
		out.Confidence = ptr(*t.Confidence)
	}
	if t.Profile.SelfConfidence != nil {
		out.Profile.SelfConfidence = ptr(*t.Profile.SelfConfidence)
	}
	return out
}

// concede adopts metapolicy.ConcedeTarget of prev. The agent takes the
// mean known confidence of the target's holders, discounted by a tenth (it
// did not work the answer out), and the profile of its most confident
// holder. With no target, or when the target is its own answer, it keeps
// its state; either way the turn costs ConcedeTokens.
func (g *simGame) concede(agent int, prev []data.Turn) data.Turn {
	answers, conf := data.Votes(prev)
	target := metapolicy.ConcedeTarget(answers, conf, agent)
	out := keep(&prev[agent])
	out.Tokens = g.s.cfg.ConcedeTokens
	if target == "" || target == prev[agent].Answer {
		return out
	}
	best, known, sum := -1, 0, 0.0
	for i := range prev {
		if i == agent || prev[i].Answer != target {
			continue
		}
		if best < 0 || orZero(conf[i]) > orZero(conf[best]) {
			best = i
		}
		if prev[i].Confidence != nil {
			known++
			sum += *prev[i].Confidence
		}
	}
	out = keep(&prev[best])
	out.Tokens = g.s.cfg.ConcedeTokens
	out.Confidence = nil
	if known > 0 {
		out.Confidence = ptr(round2(0.9 * sum / float64(known)))
	}
	return out
}

// refine draws a new answer by self-correction shown the peers' answers
// (peers whose turn has no answer, as when Run hides them for
// Self-Refine, are not seen).
func (g *simGame) refine(agent int, prev []data.Turn) data.Turn {
	t, own := g.t, prev[agent].Answer
	skill := g.s.cfg.Skills[agent]
	seen, gold, same := 0, 0, 0
	quoted := 0
	for i := range prev {
		if i == agent || prev[i].Answer == "" {
			continue
		}
		seen++
		quoted += int(math.Round(peerQuote * float64(prev[i].Profile.Tokens)))
		switch prev[i].Answer {
		case t.gold:
			gold++
		case own:
			same++
		}
	}
	topWrong, topVotes := g.topWrong(agent, prev)
	share := func(k int) float64 {
		if seen == 0 {
			return 0
		}
		return float64(k) / float64(seen)
	}

	var ans string
	if own == t.gold {
		ans = own
		pb := sigmoid(breakBase + breakWrong*share(topVotes) + breakGap*(t.difficulty-skill))
		if g.rng.Float64() < pb {
			if topWrong != "" && g.rng.Float64() < breakTo {
				ans = topWrong
			} else {
				ans = g.wrongAnswer()
			}
		}
	} else {
		sameShare := 0.0
		if own != "" {
			sameShare = share(same)
		}
		pf := sigmoid(fixBase + fixSkill*(skill-t.difficulty) + fixGold*share(gold) + fixSame*sameShare)
		switch {
		case g.rng.Float64() < pf:
			ans = t.gold
		case topWrong != "" && topWrong != own && g.rng.Float64() < conform*share(topVotes):
			ans = topWrong
		case own != "" && g.rng.Float64() < keepWrong:
			ans = own
		default:
			ans = g.wrongAnswer()
		}
	}
	ans = g.garble(ans)

	agree := 0
	for i := range prev {
		if i != agent && prev[i].Answer != "" && prev[i].Answer == ans {
			agree++
		}
	}
	prompt := g.questionTokens() + instructTokens + prev[agent].Profile.Tokens + quoted
	return g.answer(agent, ans, share(agree), prompt)
}

// topWrong is the wrong answer most peers of agent hold (ties: the lowest
// agent index), with its votes; "" and 0 when no peer is wrong.
func (g *simGame) topWrong(agent int, prev []data.Turn) (string, int) {
	best, votes := "", 0
	for i := range prev {
		a := prev[i].Answer
		if i == agent || a == "" || a == g.t.gold {
			continue
		}
		v := 0
		for j := range prev {
			if j != agent && prev[j].Answer == a {
				v++
			}
		}
		if v > votes {
			best, votes = a, v
		}
	}
	return best, votes
}

// answer builds agent's turn holding ans: confidence, stated confidence and
// profile drawn from the model, tokens = prompt + the completion.
func (g *simGame) answer(agent int, ans string, agree float64, prompt int) data.Turn {
	t, rng := g.t, g.rng
	right := ans == t.gold
	z := g.s.bias[agent] - confDifficulty*(t.difficulty-0.5) + confConsensus*agree + confNoise*rng.NormFloat64()
	switch {
	case right:
		z += confRight
	case ans != "" && ans == t.wrong[0]:
		z += confAttractor
	default:
		z += confOther
	}
	stated := math.Round(sigmoid(z+statedShift+statedNoise*rng.NormFloat64())*20) / 20
	c := round2(sigmoid(z))
	wrong := 0.0
	if !right {
		wrong = 1
	}
	steps := max(1, int(math.Round(2+6*t.difficulty+2*wrong+1.5*rng.NormFloat64())))
	completion := max(30, int(math.Round(120+380*t.difficulty+80*wrong+40*rng.NormFloat64())))
	hedges := poisson(rng, 0.2+2.5*(1-c))
	out := data.Turn{
		Answer:  ans,
		Profile: data.Profile{Steps: steps, Tokens: completion, Hedges: hedges, SelfConfidence: ptr(stated)},
		Tokens:  prompt + completion,
	}
	if rng.Float64() >= g.s.cfg.MissingConfidence {
		out.Confidence = ptr(c)
	}
	return out
}

// wrongAnswer draws one of the task's wrong answers, the attractor most often.
func (g *simGame) wrongAnswer() string {
	u := g.rng.Float64()
	for j, c := range g.t.wrongCum {
		if u < c {
			return g.t.wrong[j]
		}
	}
	return g.t.wrong[len(g.t.wrong)-1]
}

// garble makes an answer unreadable with a small probability.
func (g *simGame) garble(ans string) string {
	if g.rng.Float64() < unreadable {
		return ""
	}
	return ans
}

func (g *simGame) questionTokens() int {
	return questionTokens + int(math.Round(questionPerD*g.t.difficulty))
}

// split returns the answers and confidences (NaN when missing) of turns.

// poisson draws from Poisson(lambda) by Knuth's product method (λ is small).
func poisson(rng *rand.Rand, lambda float64) int {
	l, k, p := math.Exp(-lambda), 0, rng.Float64()
	for p > l {
		k++
		p *= rng.Float64()
	}
	return k
}

// orZero counts a missing confidence as 0, as the consensus rules do.
func orZero(c float64) float64 {
	if metapolicy.Known(c) {
		return c
	}
	return 0
}

func round2(x float64) float64 { return math.Round(x*100) / 100 }

func ptr[T any](v T) *T { return &v }
