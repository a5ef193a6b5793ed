package replay

import (
	"fmt"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/transcript"
)

// game is one replayed question.
type game struct {
	e *Env
	q *transcript.Question
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

// recorded is agent k's recorded answer of round t (its last one when it
// recorded fewer rounds), with its estimated cost.
func (g *game) recorded(k, t int) data.Turn {
	a := g.q.At(k, t)
	turn := data.Turn{Answer: a.Answer, Profile: a.Profile, Tokens: a.Tokens()}
	if g.e.text {
		turn.Text = a.Text
	}
	return turn
}

// Step plays one agent's action in round ≥ 1:
//
//   - refine: the agent's recorded answer of this round (its last one if it
//     recorded fewer), with that answer's estimated tokens;
//   - persist: its previous turn unchanged, at no cost;
//   - concede: metapolicy.ConcedeTarget of prev, with the reasoning profile
//     (and text) of the lowest-index peer holding it, at the concede cost;
//     with no peer answer to adopt it keeps its own, still at that cost.
//
// The returned turn carries the action; the caller adds the log-probability.
func (g *game) Step(round, agent int, action metapolicy.Action, prev []data.Turn) (data.Turn, error) {
	n := len(g.q.Agents)
	switch {
	case round < 1:
		return data.Turn{}, fmt.Errorf("replay: %s: round %d, want ≥ 1", g.q.ID, round)
	case agent < 0 || agent >= n:
		return data.Turn{}, fmt.Errorf("replay: %s: agent %d outside [0, %d)", g.q.ID, agent, n)
	case len(prev) != n:
		return data.Turn{}, fmt.Errorf("replay: %s: %d previous turns, want %d", g.q.ID, len(prev), n)
	case !action.Valid():
		return data.Turn{}, fmt.Errorf("replay: %s: invalid action %d", g.q.ID, uint8(action))
	}
	var t data.Turn
	switch action {
	case metapolicy.Refine:
		t = g.recorded(agent, round)
	case metapolicy.Persist:
		t = prev[agent]
		t.Tokens, t.Exchanges = 0, nil
	case metapolicy.Concede:
		t = concede(prev, agent)
		t.Tokens = g.e.concede
	}
	t.Action, t.LogProb = &action, nil
	return t, nil
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
