package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
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
	p := &g.s.p
	for i := range turns {
		ans := g.wrongAnswer()
		if g.rng.Float64() < sigmoid(p.SolveSlope*(g.s.cfg.Skills[i]-g.t.difficulty)) {
			ans = g.t.gold
		}
		turns[i] = g.answer(i, g.garble(ans, g.t.unreadable), 0, g.t.prompt, false)
	}
	return turns, nil
}

func (g *simGame) Step(round, agent int, action metapolicy.Action, prev []data.Turn) (data.Turn, error) {
	if err := env.CheckStep(round, agent, g.s.cfg.Agents, action, prev); err != nil {
		return data.Turn{}, fmt.Errorf("sim: simulator: %s: %w", g.t.id, err)
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
	return data.Turn{}, fmt.Errorf("sim: simulator: %s: invalid action %d", g.t.id, uint8(action))
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
	t, own, p := g.t, prev[agent].Answer, &g.s.p
	skill := g.s.cfg.Skills[agent]
	seen, gold, same, quoted := 0, 0, 0, 0
	for i := range prev {
		if i == agent || prev[i].Answer == "" {
			continue
		}
		seen++
		quoted += prev[i].Profile.Tokens
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
		w := share(topVotes)
		pb := sigmoid(p.BreakBase + p.BreakWrong*w + p.BreakAllWrong*all(w) + p.BreakGap*(t.difficulty-skill))
		if g.rng.Float64() < pb {
			if topWrong != "" && g.rng.Float64() < p.BreakTo {
				ans = topWrong
			} else {
				ans = g.otherWrong(own, topWrong)
			}
		}
	} else {
		sameShare := 0.0
		if own != "" {
			sameShare = share(same)
		}
		gs := share(gold)
		pf := sigmoid(p.FixBase + p.FixSkill*(skill-t.difficulty) + p.FixGold*gs + p.FixSame*sameShare + p.FixAllGold*all(gs))
		switch {
		case g.rng.Float64() < pf:
			ans = t.gold
		case topWrong != "" && topWrong != own && g.rng.Float64() < p.Conform*share(topVotes):
			ans = topWrong
		case own != "" && g.rng.Float64() < p.KeepWrong:
			ans = own
		default:
			ans = g.otherWrong(own, topWrong)
		}
	}
	ans = g.garble(ans, g.t.revUnread)

	agree := 0
	for i := range prev {
		if i != agent && prev[i].Answer != "" && prev[i].Answer == ans {
			agree++
		}
	}
	prompt := p.PromptBase + p.PromptQuestion*float64(t.prompt) +
		p.PromptOwn*float64(prev[agent].Profile.Tokens) + p.PromptPeers*float64(quoted)
	return g.answer(agent, ans, share(agree), max(1, int(math.Round(prompt))), true)
}

// all is 1 for a share of 1 (every seen peer), else 0.
func all(share float64) float64 {
	if share == 1 {
		return 1
	}
	return 0
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
// profile drawn from the model (of a revision when revised), tokens =
// prompt + the completion.
func (g *simGame) answer(agent int, ans string, agree float64, prompt int, revised bool) data.Turn {
	t, rng, p := g.t, g.rng, &g.s.p
	right := ans == t.gold
	z := g.s.bias[agent] - p.ConfDifficulty*(t.difficulty-p.DifficultyMean) + p.ConfConsensus*agree + p.ConfNoise*rng.NormFloat64()
	switch {
	case right:
		z += p.ConfRight
	case ans != "" && ans == t.wrong[0]:
		z += p.ConfAttractor
	default:
		z += p.ConfOther
	}
	tokens, steps, hedges := p.TokensWrong, p.StepsWrong, p.HedgesWrong
	if right {
		tokens, steps, hedges = p.TokensRight, p.StepsRight, p.HedgesRight
	}
	if revised {
		tokens = p.RevisionTokensWrong
		if right {
			tokens = p.RevisionTokensRight
		}
	}
	// One draw sets the length, and scales steps and hedges with it.
	zl := rng.NormFloat64()
	completion := max(1, int(math.Round(tokens.draw(zl))))
	steps *= math.Exp(p.StepsSpread*zl - p.StepsSpread*p.StepsSpread/2)
	hedges *= math.Exp(p.HedgesSpread*zl - p.HedgesSpread*p.HedgesSpread/2)
	out := data.Turn{
		Answer:  ans,
		Profile: data.Profile{Steps: poisson(rng, steps), Tokens: completion, Hedges: poisson(rng, hedges)},
		Tokens:  prompt + completion,
	}
	if rng.Float64() < p.StatedRate {
		out.Profile.SelfConfidence = ptr(math.Round(sigmoid(z+p.StatedShift+p.StatedNoise*rng.NormFloat64())*20) / 20)
	}
	if rng.Float64() >= g.s.cfg.MissingConfidence {
		out.Confidence = ptr(round2(sigmoid(z)))
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

// otherWrong draws a wrong answer other than own and the peers' top wrong
// one when the task has one, so that keeping, joining the peers and
// drifting elsewhere stay distinct outcomes (as Calibrate counts them).
func (g *simGame) otherWrong(own, top string) string {
	for range 16 {
		if a := g.wrongAnswer(); a != own && a != top {
			return a
		}
	}
	for _, a := range g.t.wrong {
		if a != own && a != top {
			return a
		}
	}
	return g.wrongAnswer()
}

// garble makes an answer unreadable with probability u.
func (g *simGame) garble(ans string, u float64) string {
	if g.rng.Float64() < u {
		return ""
	}
	return ans
}

// poisson draws from Poisson(lambda): Knuth's product method for small λ,
// a rounded normal approximation for large.
func poisson(rng *rand.Rand, lambda float64) int {
	if lambda > 30 {
		return max(0, int(math.Round(lambda+math.Sqrt(lambda)*rng.NormFloat64())))
	}
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
