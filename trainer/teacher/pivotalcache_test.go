package teacher

import (
	"fmt"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
)

// pivotalReference is pivotalLabels as first written: every action of
// every decision replayed from a fresh Start, the behaviour's own action
// too. The labels must not depend on pivotalLabels skipping that one.
func pivotalReference(e env.Env, tasks []int, behaviour metapolicy.Policy, fill bool, rounds int, lambda float64, seed uint64, width int, featurize Featurizer) (x []float32, actions []uint8, seen int, err error) {
	f := make([]float64, width)
	for _, task := range tasks {
		g, err := e.Start(task, GameRNG(seed, task))
		if err != nil {
			return nil, nil, 0, err
		}
		_, _, gold := g.Task()
		if gold == "" {
			continue
		}
		n := g.Agents()
		rounds := env.RoundsOf(e, task, rounds)
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
					alt := base.Clone()[:t]
					alt[t-1][i] = a
					got, err := Play(e, task, seed, alt)
					if err != nil {
						return nil, nil, 0, err
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
					best, pivotal = b, true
				}
				if !pivotal {
					continue
				}
				obs := ep.Observation(t, i)
				if err := featurize(f, &obs); err != nil {
					return nil, nil, 0, err
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

// labelsOf formats labels for comparison.
func labelsOf(x []float32, actions []uint8, seen int, err error) string {
	return fmt.Sprint(x, actions, seen, err)
}

// The simulator draws every answer from the game's stream, so it checks
// that the behaviour's own action is scored from the behaviour's play as
// a fresh replay of it would score it, over every protocol and λ.
func TestPivotalLabelsAsReplayedFromScratch(t *testing.T) {
	e, err := sim.New(sim.Config{Tasks: 12, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	fz, err := metapolicy.FeaturizerFor("")
	if err != nil {
		t.Fatal(err)
	}
	tasks := []int{0, 3, 5, 7, 11}
	labelled := 0
	for _, over := range []string{"", metapolicy.HeuristicGate, metapolicy.HeuristicDebate} {
		var p metapolicy.Policy
		if over != "" {
			if p, err = metapolicy.NewHeuristic(over); err != nil {
				t.Fatal(err)
			}
		}
		for _, lambda := range []float64{0, 0.5} {
			got := labelsOf(pivotalLabels(e, tasks, p, p != nil, 3, lambda, 9, fz.Width, fz.Featurize))
			want := labelsOf(pivotalReference(e, tasks, p, p != nil, 3, lambda, 9, fz.Width, fz.Featurize))
			if got != want {
				t.Errorf("over %q, λ %v: labels differ from replaying every action", over, lambda)
			}
			_, acts, _, _ := pivotalLabels(e, tasks, p, p != nil, 3, lambda, 9, fz.Width, fz.Featurize)
			labelled += len(acts)
		}
	}
	if labelled == 0 {
		t.Error("no decision labelled: the comparison compared nothing")
	}
}

// pivotalCached returns what the uncached teachers return through any
// view and for any seed, keeps one entry per task of an Unseeded source
// (a replay) and configuration, and keeps nothing of the simulator, whose
// games depend on the seed and on the view's numbering of the task.
func TestPivotalCachedAcrossViewsAndSeeds(t *testing.T) {
	two := handBuilt(t).Question(0)
	one := *two
	one.ID, one.Text = "q1", "q one"
	one.Agents = [][]transcript.Answer{two.Agents[0][:2], two.Agents[1][:2], two.Agents[2][:2]}
	nogold := one
	nogold.ID, nogold.Text, nogold.Gold = "q2", "q two", ""
	e, err := replay.New([]transcript.Question{*two, one, nogold})
	if err != nil {
		t.Fatal(err)
	}
	if !env.IsUnseeded(view{e, []int{1}}, 0) {
		t.Fatal("a view of a replay is not Unseeded")
	}
	fz, err := metapolicy.FeaturizerFor("")
	if err != nil {
		t.Fatal(err)
	}
	gate, err := metapolicy.NewHeuristic(metapolicy.HeuristicGate)
	if err != nil {
		t.Fatal(err)
	}
	a, b := view{e, []int{0, 2, 1}}, view{e, []int{1, 0}}
	for _, v := range []view{a, b, a} {
		for seed := range uint64(2) {
			for _, lambda := range []float64{0, 1} {
				for _, over := range []metapolicy.Policy{nil, gate} {
					name := ""
					if over != nil {
						name = over.Name()
					}
					got := labelsOf(pivotalCached(v, []int{0, 1, 2}[:v.NumTasks()], over, name, 2, lambda, seed, fz))
					want := labelsOf(pivotalLabels(v, []int{0, 1, 2}[:v.NumTasks()], over, over != nil, 2, lambda, seed, fz.Width, fz.Featurize))
					if got != want {
						t.Errorf("view %v, seed %d, λ %v, over %q: cached labels differ", v.tasks, seed, lambda, name)
					}
				}
			}
		}
	}
	s, err := sim.New(sim.Config{Tasks: 4, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(2) {
		got := labelsOf(pivotalCached(s, []int{0, 1, 2, 3}, nil, "", 3, 0, seed, fz))
		want := labelsOf(pivotalLabels(s, []int{0, 1, 2, 3}, nil, false, 3, 0, seed, fz.Width, fz.Featurize))
		if got != want {
			t.Errorf("simulator, seed %d: cached labels differ", seed)
		}
	}
	byEnv := map[env.Env]int{}
	labelled.Range(func(k, _ any) bool {
		byEnv[k.(pivotalKey).env]++
		return true
	})
	if n := byEnv[e]; n != 3*2*2 {
		t.Errorf("%d entries for the replay's 3 tasks × 2 λ × 2 teachers, want 12", n)
	}
	if n := byEnv[s]; n != 0 {
		t.Errorf("%d entries for the simulator, want none", n)
	}
	if env.IsUnseeded(s, 0) {
		t.Error("the simulator says it is Unseeded")
	}
}
