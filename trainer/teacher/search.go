package teacher

// What the search maximises.
//
// In a replay of recorded transcripts (env/replay) every action's outcome
// is known in advance, so the actions that a team should have taken on a
// training question can be found by search rather than guessed by a
// heuristic. Search plays whole action plans through the env.Env/env.Game
// interface — every plan from a fresh Start with the same seed, so that a
// stateful game (a replay that counts an agent's revisions) is never
// branched mid-way — and keeps the best by
//
//	score = 1[final team answer correct] − λ·tokens/1000
//
// where tokens are all the tokens the episode spent (round 0 included; it
// is the same for every plan). This is the quantity an evaluation reports
// (accuracy and tokens per task) with design §2's token cost λ; the
// per-decision differential reward of design §2 is what SoftRankPO learns
// from, but its sum over an episode is not the team's result, so the
// teacher optimises the result. Ties go to fewer tokens, then to the plan
// whose actions, read round by round and agent by agent, come first in
// action order (persist < refine < concede): a consistent choice, so that
// equal states get equal labels.
//
// How it searches.
//
// With N agents and R rounds there are 3^(N·R) plans. Up to
// Config.MaxExhaustive plans (default 3^9: three agents, three rounds)
// Search tries them all and the result is the true optimum. Beyond, it runs
// per-agent coordinate ascent: from the best of the fixed protocols
// (everyone persists, everyone refines, everyone refines once then
// persists), it tries every 3^R sequence of one agent with the others
// fixed, keeps the best, and sweeps the agents until a sweep improves
// nothing. That result is a lower bound on the optimum, and Result says
// which was run.

import (
	"errors"
	"fmt"
	"math"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// DefaultMaxExhaustive is the largest number of plans Search tries
// exhaustively: 3^9, three agents over three rounds.
const DefaultMaxExhaustive = 19683

// Config configures Search.
type Config struct {
	// Lambda is the token cost per 1000 tokens in the score (design §2's λ).
	Lambda float64 `json:"lambda"`
	// Rounds is the number of deliberation rounds after round 0 (> 0).
	Rounds int `json:"rounds"`
	// MaxExhaustive is the most plans tried one by one; beyond it Search
	// runs per-agent coordinate ascent. 0 means DefaultMaxExhaustive.
	MaxExhaustive int `json:"max_exhaustive"`
	// Seed seeds every game (GameRNG); replay ignores it.
	Seed uint64 `json:"seed"`
}

func (c Config) validate() (Config, error) {
	switch {
	case !(c.Lambda >= 0) || math.IsInf(c.Lambda, 0):
		return c, fmt.Errorf("teacher: lambda %v, want a finite value ≥ 0", c.Lambda)
	case c.Rounds <= 0 || c.Rounds > 64:
		return c, fmt.Errorf("teacher: rounds %d, want in [1, 64]", c.Rounds)
	case c.MaxExhaustive < 0:
		return c, fmt.Errorf("teacher: max exhaustive %d, want ≥ 0", c.MaxExhaustive)
	}
	if c.MaxExhaustive == 0 {
		c.MaxExhaustive = DefaultMaxExhaustive
	}
	return c, nil
}

// Result is the best plan Search found for one task.
type Result struct {
	Task    int     `json:"task"`
	ID      string  `json:"id"`
	Plan    Plan    `json:"-"`
	Correct bool    `json:"correct"` // the plan's final team answer is the gold
	Tokens  int     `json:"tokens"`  // the plan's tokens, round 0 included
	Score   float64 `json:"score"`   // 1[correct] − λ·tokens/1000
	// Exhaustive is true when every plan was tried (Score is the optimum),
	// false when coordinate ascent found it (a lower bound).
	Exhaustive bool `json:"exhaustive"`
	Played     int  `json:"played"` // plans played
}

// ErrNoGold is returned for a task without a gold answer: nothing to
// search for.
var ErrNoGold = errors.New("teacher: task has no gold answer")

// candidate is a scored plan.
type candidate struct {
	plan    Plan
	correct bool
	tokens  int
	score   float64
}

// better reports whether a beats b: higher score, then fewer tokens, then
// the plan first in action order.
func better(a, b *candidate) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	if a.tokens != b.tokens {
		return a.tokens < b.tokens
	}
	for t := range a.plan {
		for i := range a.plan[t] {
			if a.plan[t][i] != b.plan[t][i] {
				return a.plan[t][i] < b.plan[t][i]
			}
		}
	}
	return false
}

// Search finds the best plan for task of e (see the package doc). It
// returns an error wrapping ErrNoGold for a task without a gold answer.
func Search(e env.Env, task int, cfg Config) (Result, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return Result{}, err
	}
	g, err := e.Start(task, GameRNG(cfg.Seed, task))
	if err != nil {
		return Result{}, fmt.Errorf("teacher: %s: task %d: %w", e.Name(), task, err)
	}
	id, _, gold := g.Task()
	if gold == "" {
		return Result{}, fmt.Errorf("teacher: %s: task %s: %w", e.Name(), id, ErrNoGold)
	}
	n := g.Agents()
	res := Result{Task: task, ID: id}
	eval := func(p Plan) (candidate, error) {
		ep, err := Play(e, task, cfg.Seed, p)
		if err != nil {
			return candidate{}, err
		}
		res.Played++
		ok, tok := Outcome(ep)
		c := candidate{plan: p, correct: ok, tokens: tok, score: -cfg.Lambda * float64(tok) / 1000}
		if ok {
			c.score++
		}
		return c, nil
	}
	var best candidate
	rounds := env.RoundsOf(e, task, cfg.Rounds) // a replayed task's own rounds
	total, exhaustive := plans(n*rounds, cfg.MaxExhaustive)
	if exhaustive {
		best, err = searchAll(n, rounds, total, eval)
	} else {
		best, err = ascend(n, rounds, eval)
	}
	if err != nil {
		return Result{}, err
	}
	res.Plan, res.Correct, res.Tokens, res.Score, res.Exhaustive = best.plan, best.correct, best.tokens, best.score, exhaustive
	return res, nil
}

// plans returns 3^k and whether it is at most limit.
func plans(k, limit int) (int, bool) {
	total := 1
	for range k {
		total *= metapolicy.NumActions
		if total > limit {
			return 0, false
		}
	}
	return total, true
}

// decode writes plan number code (base 3, the first action most
// significant) into p.
func decode(p Plan, code int) {
	for t := len(p) - 1; t >= 0; t-- {
		for i := len(p[t]) - 1; i >= 0; i-- {
			p[t][i] = metapolicy.Action(code % metapolicy.NumActions)
			code /= metapolicy.NumActions
		}
	}
}

func searchAll(n, rounds, total int, eval func(Plan) (candidate, error)) (candidate, error) {
	var best candidate
	for code := range total {
		p := Uniform(n, rounds, metapolicy.Persist)
		decode(p, code)
		c, err := eval(p)
		if err != nil {
			return c, err
		}
		if code == 0 || better(&c, &best) {
			best = c
		}
	}
	return best, nil
}

// ascend is per-agent coordinate ascent from the best fixed protocol.
func ascend(n, rounds int, eval func(Plan) (candidate, error)) (candidate, error) {
	starts := []Plan{
		Uniform(n, rounds, metapolicy.Persist),
		Uniform(n, rounds, metapolicy.Refine),
	}
	once := Uniform(n, rounds, metapolicy.Persist)
	for i := range once[0] {
		once[0][i] = metapolicy.Refine
	}
	starts = append(starts, once)
	var best candidate
	for k, p := range starts {
		c, err := eval(p)
		if err != nil {
			return c, err
		}
		if k == 0 || better(&c, &best) {
			best = c
		}
	}
	per, _ := plans(rounds, math.MaxInt)
	for improved := true; improved; {
		improved = false
		for i := range n {
			for code := range per {
				p, k := best.plan.Clone(), code
				for t := rounds - 1; t >= 0; t-- {
					p[t][i] = metapolicy.Action(k % metapolicy.NumActions)
					k /= metapolicy.NumActions
				}
				c, err := eval(p)
				if err != nil {
					return c, err
				}
				if better(&c, &best) {
					best, improved = c, true
				}
			}
		}
	}
	return best, nil
}
