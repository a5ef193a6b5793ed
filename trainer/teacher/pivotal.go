package teacher

// PivotalLabels is a second teacher: it keeps only the decisions of the
// majority protocol (everyone persists) whose action changes the team's
// result, labelled with the best action, so that a cloned policy learns
// when a refine helps rather than that it is rarely needed.
//
// PivotalOver is the third, and the replay recipe's (trainer.ReplayLabels,
// "pivotal:gate"): it plays a fixed protocol (gate) and labels every one of
// its decisions, with the best action where the agent's action changes
// whether the team is right, and with the protocol's own action elsewhere.
// Where hindsight is silent the clone then keeps the protocol's prior
// (refine when round 0 disagrees) instead of generalising "persist" from
// the few pivotal decisions, which on models whose revisions mostly fix
// costs accuracy (docs/results.md, 2026-12-01).

import (
	"fmt"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// PivotalName is the value of trainer.Config.SFT.Labels that asks Train
// for PivotalLabels instead of the hindsight plans.
const PivotalName = "pivotal"

// PivotalLabels labels the decisions of the majority protocol (everyone
// persists) that matter: for each task, round and agent, it plays the
// round again with that agent alone taking each action (the others
// persisting, from a fresh Start) and scores each by 1[team answer after
// the round correct] − λ·tokens/1000 (the agent's tokens of the round).
// When the actions score differently the decision is pivotal and its label
// is the best action (ties to the lower action index); decisions where
// every action scores the same are left out (with λ > 0 the actions' costs
// differ, so every decision is labelled). Unlike Labels, which clones
// whole plans whose every other decision is "persist", this keeps only the
// decisions where the choice changes the team's result, so that a cloned
// policy learns when refining (or conceding) helps rather than that it
// rarely does. It returns the features (width each) and labels, and the
// number of decisions looked at. The labels know the gold answers: give it
// training tasks only.
func PivotalLabels(e env.Env, tasks []int, rounds int, lambda float64, seed uint64, width int, featurize Featurizer) (x []float32, actions []uint8, seen int, err error) {
	return PivotalLabelsOf(e, tasks, nil, rounds, lambda, seed, width, featurize)
}

// PivotalLabelsOf is PivotalLabels on the states a behaviour visits: each
// task is played with behaviour's most probable actions (nil: everyone
// persists), and each decision's alternatives keep the other agents'
// actions of that round as the behaviour chose them. Labelling the states
// a cloned policy itself reaches, and cloning again, is DAgger's remedy for
// the states the first clone never saw.
func PivotalLabelsOf(e env.Env, tasks []int, behaviour metapolicy.Policy, rounds int, lambda float64, seed uint64, width int, featurize Featurizer) (x []float32, actions []uint8, seen int, err error) {
	return pivotalLabels(e, tasks, behaviour, false, rounds, lambda, seed, width, featurize)
}

// PivotalOver labels every decision of base's play (its most probable
// actions, e.g. the gate protocol): a decision where the agent's action
// alone changes whether the team's answer after the round is right (the
// other agents acting as base chose) is labelled with the best action, as
// in PivotalLabelsOf (score 1[right] − λ·tokens/1000), ties going to
// base's action, then to the lower action index; every other decision is
// labelled with base's own action.
// The pivotal teacher leaves those out, and its clone falls back to
// persisting there; this one keeps base as the prior where hindsight has
// nothing to say (gate: refine on disagreement), and departs from it only
// where hindsight shows the departure changes the result. It returns the
// features (width each), the labels and the number of decisions (all
// labelled). The labels know the gold answers: give it training tasks only.
func PivotalOver(e env.Env, tasks []int, base metapolicy.Policy, rounds int, lambda float64, seed uint64, width int, featurize Featurizer) (x []float32, actions []uint8, seen int, err error) {
	if base == nil {
		return nil, nil, 0, fmt.Errorf("teacher: pivotal over a base: no base policy")
	}
	return pivotalLabels(e, tasks, base, true, rounds, lambda, seed, width, featurize)
}

// pivotalLabels is PivotalLabelsOf, and with fill PivotalOver: there a
// decision is pivotal when the team's correctness differs between actions
// (not merely their cost), and the others get the behaviour's action.
func pivotalLabels(e env.Env, tasks []int, behaviour metapolicy.Policy, fill bool, rounds int, lambda float64, seed uint64, width int, featurize Featurizer) (x []float32, actions []uint8, seen int, err error) {
	f := make([]float64, width)
	for _, task := range tasks {
		g, err := e.Start(task, GameRNG(seed, task))
		if err != nil {
			return nil, nil, 0, fmt.Errorf("teacher: %s: task %d: %w", e.Name(), task, err)
		}
		_, _, gold := g.Task()
		if gold == "" {
			continue
		}
		n := g.Agents()
		rounds := env.RoundsOf(e, task, rounds) // a replayed task's own rounds
		base := Uniform(n, rounds, metapolicy.Persist)
		if behaviour != nil {
			if base, err = greedyPlan(e, task, seed, behaviour, n, rounds); err != nil {
				return nil, nil, 0, err
			}
		}
		ep, err := Play(e, task, seed, base)
		if err != nil {
			return nil, nil, 0, err
		}
		for t := 1; t <= rounds; t++ {
			for i := range n {
				seen++
				var score [metapolicy.NumActions]float64
				var right [metapolicy.NumActions]bool
				for _, a := range metapolicy.Actions {
					// The behaviour's own action plays round t as ep did
					// (Play is deterministic in the plan's first t rounds).
					got := ep
					if a != base[t-1][i] {
						alt := base.Clone()[:t]
						alt[t-1][i] = a
						if got, err = Play(e, task, seed, alt); err != nil {
							return nil, nil, 0, err
						}
					}
					turns := got.Rounds[t].Turns
					score[a] = -lambda * float64(turns[i].Tokens) / 1000
					if right[a] = data.TeamAnswer(turns) == gold; right[a] {
						score[a]++
					}
				}
				best, pivotal := metapolicy.Persist, false
				for _, a := range metapolicy.Actions[1:] {
					if fill && right[a] != right[0] || !fill && score[a] != score[0] {
						pivotal = true
					}
					if score[a] > score[best] {
						best = a
					}
				}
				if b := base[t-1][i]; fill && (!pivotal || score[b] == score[best]) {
					best, pivotal = b, true // base's action, unless hindsight beats it
				}
				if !pivotal {
					continue
				}
				obs := ep.Observation(t, i)
				if err := featurize(f, &obs); err != nil {
					return nil, nil, 0, fmt.Errorf("teacher: task %s: round %d: agent %d: %w", ep.Task, t, i, err)
				}
				for _, v := range f {
					x = append(x, float32(v))
				}
				actions = append(actions, uint8(best))
			}
		}
	}
	return x, actions, seen, nil
}

// greedyPlan plays task round by round with pol's most probable actions
// and returns the plan it took.
func greedyPlan(e env.Env, task int, seed uint64, pol metapolicy.Policy, n, rounds int) (Plan, error) {
	plan := Plan{}
	for t := 1; t <= rounds; t++ {
		ep, err := Play(e, task, seed, plan)
		if err != nil {
			return nil, err
		}
		row := make([]metapolicy.Action, n)
		for i := range n {
			obs := ep.Observation(t, i)
			obs.Rounds = rounds
			a, _, err := metapolicy.Greedy(pol, &obs)
			if err != nil {
				return nil, fmt.Errorf("teacher: task %s: round %d: agent %d: %w", ep.Task, t, i, err)
			}
			row[i] = a
		}
		plan = append(plan, row)
	}
	return plan, nil
}
