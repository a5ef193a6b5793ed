package metapolicy_test

import (
	"fmt"

	"github.com/mpdf/mpdf/metapolicy"
)

// A Policy maps what an agent sees at the start of a round to a
// distribution over persist, refine and concede. The threshold heuristic
// persists when confident, concedes when unsure, refines in between.
func ExamplePolicy() {
	p, err := metapolicy.ParseHeuristic("threshold:0.9:0.3")
	if err != nil {
		panic(err)
	}
	agents := []metapolicy.AgentState{
		{Answer: "42", Confidence: 0.95},
		{Answer: "41", Confidence: 0.6},
		{Answer: "40", Confidence: 0.1},
	}
	for self := range agents {
		obs := &metapolicy.Observation{Self: self, Round: 1, Rounds: 3, Agents: agents}
		var probs [metapolicy.NumActions]float64
		if err := p.Probs(&probs, obs); err != nil {
			panic(err)
		}
		a, _, err := metapolicy.Greedy(p, obs)
		if err != nil {
			panic(err)
		}
		fmt.Printf("agent %d (confidence %.2f): %v → %v\n", self, agents[self].Confidence, probs, a)
	}
	// Output:
	// agent 0 (confidence 0.95): [1 0 0] → persist
	// agent 1 (confidence 0.60): [0 1 0] → refine
	// agent 2 (confidence 0.10): [0 0 1] → concede
}
