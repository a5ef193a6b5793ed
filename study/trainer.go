package study

import (
	"context"
	"fmt"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
)

// Trainer trains a policy on the tasks of train (one fold's training
// side) with cfg, whose Seed, Reward.Lambda and RL.Rounds the study has
// set for this fold, seed and λ. It must be deterministic in its inputs
// and safe to call from several goroutines at once. It is the seam where
// a study can use another training run (a library Train, an offline
// stage): TrainInMemory is the default, teacher.Train the same run with a
// hindsight or pivotal supervised stage.
type Trainer func(train env.Env, cfg trainer.Config) (metapolicy.Policy, error)

// TrainInMemory is the default Trainer: the online run of `mpdf train`
// in memory (trainer/run.Train without a directory): a fresh policy over the
// layout cfg.FeatureLayout(), a supervised stage cloning cfg.SFT.Labels's
// actions on every training task when cfg.SFT.Epochs > 0, then
// cfg.RL.Iterations SoftRankPO iterations against the supervised policy
// as reference. It uses the kernel backend on one thread whatever
// cfg.Backend says, so that a fold's bits do not depend on the machine's
// core count; the study runs folds in parallel instead.
func TrainInMemory(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
	if train.NumTasks() == 0 {
		return nil, fmt.Errorf("study: train: no training task")
	}
	fz, err := metapolicy.FeaturizerFor(cfg.FeatureLayout())
	if err != nil {
		return nil, fmt.Errorf("study: train: %w", err)
	}
	cfg.Backend = "kernel"
	res, err := run.Train(context.Background(), run.Config{Train: cfg, Env: train, Threads: 1}, run.Hooks{})
	if err != nil {
		return nil, fmt.Errorf("study: train: %w", err)
	}
	return res.PolicyOver("mpdf", fz)
}
