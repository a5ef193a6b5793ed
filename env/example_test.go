package env_test

import (
	"fmt"
	"os"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
)

// Evaluate plays a policy and the fixed protocols on the same tasks and
// seeds, and Judge says whether the policy is worth using: what mpdf eval
// prints. Here the candidate is a confidence threshold, played greedily on
// 60 tasks of the simulator.
func ExampleEvaluate() {
	s, err := sim.New(sim.Config{Seed: 1, Tasks: 60})
	if err != nil {
		panic(err)
	}
	candidate, err := metapolicy.ParseHeuristic("threshold:0.8:0.2")
	if err != nil {
		panic(err)
	}
	policies := []metapolicy.Policy{candidate}
	for _, name := range env.VerdictBaselines() {
		p, err := metapolicy.NewHeuristic(name)
		if err != nil {
			panic(err)
		}
		policies = append(policies, p)
	}

	results, err := env.Evaluate(s, policies, env.RunOptions{Seed: 7, Greedy: true, Workers: 1})
	if err != nil {
		panic(err)
	}
	if err := results.WriteTable(os.Stdout); err != nil {
		panic(err)
	}
	v, err := env.Judge(results, candidate.Name(), env.JudgeOptions{Confidence: true, Play: env.PlayGreedy})
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Sentence)
	// Output:
	// policy             episodes  accuracy  95% CI (tasks)  round 0  tokens/task  persist  refine  concede
	// threshold:0.8:0.2  60        0.767     [0.650, 0.867]  0.683    6005         0.552    0.350   0.098
	// majority           60        0.683     [0.567, 0.800]  0.683    1019         1.000    0.000   0.000
	// debate             60        0.717     [0.600, 0.833]  0.683    15740        0.000    1.000   0.000
	// gate               60        0.733     [0.617, 0.850]  0.683    6651         0.567    0.433   0.000
	// until-consensus    60        0.733     [0.617, 0.850]  0.683    5169         0.689    0.311   0.000
	// threshold          60        0.717     [0.600, 0.833]  0.683    4601         0.537    0.254   0.209
	// use majority: no row is shown more accurate (this policy − majority: +8.3 points [-1.7, +18.3], not established; 6005 vs 1019 tokens per task).
}
