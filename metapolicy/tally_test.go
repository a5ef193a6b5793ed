package metapolicy

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// naiveTallies is appendTallies by a scan of every tally (the code before
// the hash index): the reference for what grouping means.
func naiveTallies(answers []string, conf []float64, exclude int) []tally {
	var ts []tally
	for i, a := range answers {
		if a == "" || i == exclude {
			continue
		}
		c := 0.0
		if conf != nil && Known(conf[i]) {
			c = conf[i]
		}
		found := false
		for k := range ts {
			if ts[k].answer == a {
				ts[k].votes++
				ts[k].conf += c
				found = true
				break
			}
		}
		if !found {
			ts = append(ts, tally{answer: a, votes: 1, conf: c, first: i})
		}
	}
	return ts
}

// TestTalliesByHashMatchScan: past scanTallies distinct answers the index
// takes over (issue 34, cause 2); the tallies, their order and the team and
// concede answers are those of the scan, for teams of 2 to 300 agents with
// few or many distinct answers.
func TestTalliesByHashMatchScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 300 {
		n := 2 + rng.IntN(300)
		distinct := 1 + rng.IntN(n)
		answers, conf := make([]string, n), make([]float64, n)
		for i := range n {
			if rng.IntN(10) > 0 {
				answers[i] = fmt.Sprint(rng.IntN(distinct))
			}
			conf[i] = float64(rng.IntN(5)) / 4
		}
		exclude := rng.IntN(n+1) - 1
		got, want := appendTallies(nil, answers, conf, exclude), naiveTallies(answers, conf, exclude)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("trial %d (n %d, %d distinct): tallies\n%v\nwant\n%v", trial, n, distinct, got, want)
		}
		if teamOf(got) != teamOf(want) || concedeOf(got) != concedeOf(want) {
			t.Fatalf("trial %d: team or concede target differs", trial)
		}
	}
}

// BenchmarkFeaturizeTeamDistinct featurizes a team of MaxAgents agents with
// distinct answers: every agent's leave-one-out tallies (quadratic a round
// with the index, cubic before).
func BenchmarkFeaturizeTeamDistinct(b *testing.B) {
	obs := &Observation{Round: 1, Rounds: 2, Agents: make([]AgentState, MaxAgents)}
	for i := range obs.Agents {
		obs.Agents[i] = AgentState{Answer: fmt.Sprint(i), Confidence: Missing}
	}
	dst, targets := make([]float64, MaxAgents*FeatureWidth), make([]string, MaxAgents)
	for b.Loop() {
		if _, err := FeaturizeTeam(dst, targets, obs); err != nil {
			b.Fatal(err)
		}
	}
}
