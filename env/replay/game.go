package replay

import (
	"fmt"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// game is one replayed question in one episode. Its state is how many
// recorded revisions each agent has used; Start makes a fresh game per
// episode. Steps of one game must not run concurrently (env.Play steps a
// game's agents one after another).
type game struct {
	e    *Env
	q    *transcript.Question
	used []int // used[k]: revisions agent k has taken so far
	// models[k] is agent k's backbone model (Question.AgentModels), which
	// its every turn records.
	models []string
}

func (g *game) Task() (id, question, gold string) { return g.q.ID, g.q.Text, g.q.Gold }
func (g *game) Agents() int                       { return len(g.q.Agents) }

// Initial returns the recorded round-0 answers.
func (g *game) Initial() ([]data.Turn, error) {
	turns := make([]data.Turn, len(g.q.Agents))
	for k := range turns {
		turns[k] = g.recorded(k, 0)
	}
	return turns, nil
}

// recorded is agent k's recorded answer of round t, with its estimated
// cost. t must be below len(q.Agents[k]).
func (g *game) recorded(k, t int) data.Turn {
	a := &g.q.Agents[k][t]
	turn := data.Turn{Answer: a.Answer, Profile: a.Profile, Tokens: a.Tokens(), Model: g.models[k]}
	if g.e.text {
		turn.Text = a.Text
	}
	if g.e.critic && a.Critic != nil {
		c := *a.Critic
		turn.Confidence = &c
	}
	return turn
}

// Step plays one agent's action in round ≥ 1:
//
//   - refine: the agent's next unused recorded revision — its k-th refine
//     takes its recorded answer of round k, whatever round it happens in —
//     with that answer's estimated tokens. An agent that has used every
//     recorded revision keeps its previous turn and pays the tokens of its
//     last recorded answer (the call was made; the recording has no
//     answer for it). Refining is never a way to skip ahead to a later
//     round's answer: an agent that persists twice and refines in round 3
//     gets its round-1 revision.
//   - persist: its previous turn unchanged, at no cost;
//   - concede: metapolicy.ConcedeTarget of prev, with the reasoning profile
//     (and text) of the lowest-index peer holding it, at the concede cost;
//     with no peer answer to adopt it keeps its own, still at that cost.
//
// The returned turn carries the action; the caller adds the log-probability.
func (g *game) Step(round, agent int, action metapolicy.Action, prev []data.Turn) (data.Turn, error) {
	if err := env.CheckStep(round, agent, len(g.q.Agents), action, prev); err != nil {
		return data.Turn{}, fmt.Errorf("replay: %s: %w", g.q.ID, err)
	}
	var t data.Turn
	switch action {
	case metapolicy.Refine:
		t = g.revise(agent, prev)
	case metapolicy.Persist:
		t = prev[agent]
		t.Tokens, t.Exchanges = 0, nil
	case metapolicy.Concede:
		t = concede(prev, agent)
		t.Tokens = g.e.concede
	}
	t.Action, t.LogProb = &action, nil
	t.Model = g.models[agent] // a concede copies a peer's turn, not its model
	return t, nil
}

// Peek is the turn Step would return, the game left as it was
// (env.Peeker): a refine's revision is not used up.
func (g *game) Peek(round, agent int, action metapolicy.Action, prev []data.Turn) (data.Turn, error) {
	if agent < 0 || agent >= len(g.used) {
		return g.Step(round, agent, action, prev) // Step's error names the agent
	}
	used := g.used[agent]
	t, err := g.Step(round, agent, action, prev)
	g.used[agent] = used
	return t, err
}

// revise takes agent's next recorded revision, or keeps its previous turn
// at the cost of its last recorded answer when none is left.
func (g *game) revise(agent int, prev []data.Turn) data.Turn {
	as := g.q.Agents[agent]
	if k := g.used[agent] + 1; k < len(as) {
		g.used[agent] = k
		return g.recorded(agent, k)
	}
	t := prev[agent]
	t.Exchanges = nil
	t.Tokens = as[len(as)-1].Tokens()
	return t
}

// concede returns the turn agent adopts from its peers in prev.
func concede(prev []data.Turn, agent int) data.Turn {
	_, src := data.ConcedeSource(prev, agent)
	if src < 0 {
		src = agent
	}
	t := prev[src]
	t.Confidence, t.Exchanges = nil, nil
	return t
}
