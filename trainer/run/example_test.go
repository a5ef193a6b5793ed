package run_test

import (
	"context"
	"fmt"

	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
)

// Train trains in memory when no directory is given: a small online run on
// the built-in simulator, the supervised stage cloning the threshold
// heuristic, then SoftRankPO; the trained network comes back in the
// Result. With Config.Dir set, the same call writes checkpoints, the
// metrics log, the curve and the exported weights, and can be resumed.
func ExampleTrain() {
	cfg := trainer.DefaultConfig()
	cfg.Hidden = []int{16}
	cfg.SFT.Epochs = 2
	cfg.RL.Iterations = 3
	cfg.RL.TasksPerIter, cfg.RL.EpisodesPerTask = 8, 4
	sim, err := sim.New(sim.Config{Seed: cfg.Seed})
	if err != nil {
		panic(err)
	}
	res, err := run.Train(context.Background(), run.Config{Train: cfg, Env: sim, EnvName: "sim"}, run.Hooks{
		SFT: func(s run.SFTResult) { fmt.Printf("supervised: %d epochs over %s\n", s.Epochs, s.What) },
	})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%s: %d iterations, %d steps; policy %v\n", res.Mode, res.Iterations, res.Steps, res.Policy.Sizes)
	// Output:
	// supervised: 2 epochs over labels of threshold:0.95:0.15 on sim
	// online: 3 iterations, 12 steps; policy [26 16 3]
}
