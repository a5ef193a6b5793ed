package study_test

import (
	"fmt"

	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/study"
)

// CrossValidate trains a policy per fold and token cost λ and plays it
// against every baseline on the fold's held-out tasks, with the same
// episode seeds; Summarise pools the rows into report.md's tables. Here a
// study cut small enough to run in a moment, on the simulator.
func ExampleCrossValidate() {
	e, err := sim.New(sim.Config{Tasks: 40, Seed: 5})
	if err != nil {
		panic(err)
	}
	cfg := study.DefaultConfig()
	cfg.Folds, cfg.Seeds, cfg.Lambdas = 2, 1, []float64{0}
	cfg.Train.RL.Iterations, cfg.Train.RL.TasksPerIter, cfg.Train.RL.EpisodesPerTask = 2, 8, 2
	s, err := study.CrossValidate(e, cfg)
	if err != nil {
		panic(err)
	}
	sum, err := s.Summarise()
	if err != nil {
		panic(err)
	}
	fmt.Println(len(s.Rows), "rows over", sum.Tasks, "tasks and folds", sum.Folds)
	for _, p := range sum.Scopes[0].Policies {
		fmt.Printf("%s: %d tasks\n", p.Policy, p.Tasks)
	}
	// Output:
	// 360 rows over 40 tasks and folds [fold 0 fold 1]
	// majority: 40 tasks
	// refine: 40 tasks
	// debate: 40 tasks
	// gate: 40 tasks
	// until-consensus: 40 tasks
	// threshold: 40 tasks
	// random: 40 tasks
	// oracle (hindsight): 40 tasks
	// mpdf λ=0: 40 tasks
}
