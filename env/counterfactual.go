package env

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// Peeker is implemented by a Game that can say what an action would give
// without taking it: Peek returns the turn Step would return for the same
// arguments, and leaves the game as it was. A replay can (its turns are
// recorded); a live model cannot without paying for the call.
type Peeker interface {
	Peek(round, agent int, action metapolicy.Action, prev []data.Turn) (data.Turn, error)
}

// ErrNoCounterfactual: the environment cannot replay an episode to score
// the actions not taken (it is not Unseeded, or its games do not Peek).
var ErrNoCounterfactual = errors.New("env: counterfactual credit needs an environment that replays its episodes exactly (a replay of transcripts)")

// Alternatives replays ep, an episode of task of e, in a fresh game and
// returns, for every round t ≥ 1 and agent i, the turn each of the three
// actions would have given agent i there, every other agent's turns of
// that round and all earlier rounds as ep has them: alt[t][i][a]
// (alt[0] is nil). Alternatives of the action ep took equal ep's turn.
// It needs an Unseeded Env whose games Peek (ErrNoCounterfactual), and
// ep to be an episode of task (its id and team size).
func Alternatives(e Env, task int, ep *data.Episode) ([][][metapolicy.NumActions]data.Turn, error) {
	if !IsUnseeded(e, task) {
		return nil, ErrNoCounterfactual
	}
	g, err := e.Start(task, rand.New(rand.NewPCG(0, 0))) // Unseeded: the stream is not read
	if err != nil {
		return nil, fmt.Errorf("env: %s: task %d: %w", e.Name(), task, err)
	}
	pk, ok := g.(Peeker)
	if !ok {
		return nil, ErrNoCounterfactual
	}
	if id, _, _ := g.Task(); id != ep.Task || g.Agents() != ep.Agents {
		return nil, fmt.Errorf("env: %s: task %d is %s with %d agents, not episode %s's %s with %d", e.Name(), task, id, g.Agents(), ep.ID, ep.Task, ep.Agents)
	}
	if _, err := g.Initial(); err != nil {
		return nil, fmt.Errorf("env: %s: task %s: %w", e.Name(), ep.Task, err)
	}
	out := make([][][metapolicy.NumActions]data.Turn, len(ep.Rounds))
	for t := 1; t < len(ep.Rounds); t++ {
		prev, cur := ep.Rounds[t-1].Turns, ep.Rounds[t].Turns
		out[t] = make([][metapolicy.NumActions]data.Turn, len(cur))
		for i := range cur {
			for a := range metapolicy.NumActions {
				if out[t][i][a], err = pk.Peek(t, i, metapolicy.Action(a), prev); err != nil {
					return nil, fmt.Errorf("env: %s: episode %s: round %d: agent %d: %w", e.Name(), ep.ID, t, i, err)
				}
			}
		}
		for i := range cur {
			if cur[i].Action == nil {
				return nil, fmt.Errorf("env: %s: episode %s: round %d: agent %d has no action", e.Name(), ep.ID, t, i)
			}
			if _, err := g.Step(t, i, *cur[i].Action, prev); err != nil {
				return nil, fmt.Errorf("env: %s: episode %s: round %d: agent %d: %w", e.Name(), ep.ID, t, i, err)
			}
		}
	}
	return out, nil
}
