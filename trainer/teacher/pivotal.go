package teacher

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
				for _, a := range metapolicy.Actions {
					alt := base.Clone()[:t]
					alt[t-1][i] = a
					got, err := Play(e, task, seed, alt)
					if err != nil {
						return nil, nil, 0, err
					}
					turns := got.Rounds[t].Turns
					score[a] = -lambda * float64(turns[i].Tokens) / 1000
					if data.TeamAnswer(turns) == gold {
						score[a]++
					}
				}
				best, pivotal := metapolicy.Persist, false
				for _, a := range metapolicy.Actions[1:] {
					if score[a] != score[best] {
						pivotal = true
					}
					if score[a] > score[best] {
						best = a
					}
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
