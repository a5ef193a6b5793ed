package teacher

import (
	"fmt"
	"math/rand/v2"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// Plan is a joint action sequence: Plan[t-1][i] is agent i's action in
// deliberation round t.
type Plan [][]metapolicy.Action

// Rounds is the number of deliberation rounds of p.
func (p Plan) Rounds() int { return len(p) }

// String writes p round by round, agents as letters p/r/c: "rrr|ppp".
func (p Plan) String() string {
	b := make([]byte, 0, 4*len(p))
	for t, row := range p {
		if t > 0 {
			b = append(b, '|')
		}
		for _, a := range row {
			b = append(b, "prc"[a])
		}
	}
	return string(b)
}

// Clone returns a deep copy of p.
func (p Plan) Clone() Plan {
	q := make(Plan, len(p))
	for t := range p {
		q[t] = append([]metapolicy.Action(nil), p[t]...)
	}
	return q
}

// Uniform is the plan in which every one of n agents takes a in each of
// rounds rounds.
func Uniform(n, rounds int, a metapolicy.Action) Plan {
	p := make(Plan, rounds)
	for t := range p {
		p[t] = make([]metapolicy.Action, n)
		for i := range p[t] {
			p[t][i] = a
		}
	}
	return p
}

// GameRNG is the environment stream Play gives task's game for seed: the
// same for every plan, so that plans differ only by their actions.
func GameRNG(seed uint64, task int) *rand.Rand {
	return rand.New(rand.NewPCG(seed, 0x7465616368^uint64(task))) // "teach"
}

// Play plays plan on task of e from a fresh Start (stream GameRNG(seed,
// task)) and returns the episode, with policy name "hindsight" and no
// log-probabilities. The plan must have one action per agent per round.
func Play(e env.Env, task int, seed uint64, plan Plan) (*data.Episode, error) {
	g, err := e.Start(task, GameRNG(seed, task))
	if err != nil {
		return nil, fmt.Errorf("teacher: %s: task %d: %w", e.Name(), task, err)
	}
	id, question, gold := g.Task()
	n := g.Agents()
	turns, err := g.Initial()
	if err != nil {
		return nil, fmt.Errorf("teacher: %s: task %s: round 0: %w", e.Name(), id, err)
	}
	if len(turns) != n || n < 2 {
		return nil, fmt.Errorf("teacher: %s: task %s: %d initial turns of %d agents, want ≥ 2 and equal", e.Name(), id, len(turns), n)
	}
	for i := range turns {
		turns[i].Action, turns[i].LogProb = nil, nil
	}
	ep := &data.Episode{
		Kind: data.KindEpisode, ID: "hindsight/" + id, Task: id, Question: question, Gold: gold,
		Source: e.Name(), Policy: "hindsight", Agents: n,
		Rounds: make([]data.Round, 1, len(plan)+1),
	}
	ep.Rounds[0].Turns = turns
	for t := 1; t <= len(plan); t++ {
		row := plan[t-1]
		if len(row) != n {
			return nil, fmt.Errorf("teacher: task %s: plan round %d has %d actions, want %d", id, t, len(row), n)
		}
		prev := ep.Rounds[t-1].Turns
		cur := make([]data.Turn, n)
		for i, a := range row {
			turn, err := g.Step(t, i, a, prev)
			if err != nil {
				return nil, fmt.Errorf("teacher: %s: task %s: round %d: agent %d: %s: %w", e.Name(), id, t, i, a, err)
			}
			turn.Action, turn.LogProb = ptr(a), nil
			cur[i] = turn
		}
		ep.Rounds = append(ep.Rounds, data.Round{Turns: cur})
	}
	return ep, nil
}

func ptr[T any](v T) *T { return &v }

// Outcome is what an episode achieved: whether its final team answer is
// the gold answer, and the tokens it spent (every round, round 0 included).
func Outcome(ep *data.Episode) (correct bool, tokens int) {
	for _, r := range ep.Rounds {
		for _, t := range r.Turns {
			tokens += t.Tokens
		}
	}
	last := ep.Rounds[len(ep.Rounds)-1].Turns
	team := data.TeamAnswer(last)
	return ep.Gold != "" && team == ep.Gold, tokens
}
