package study

import (
	"fmt"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer"
)

// Trainer trains a policy on the tasks of train (one fold's training
// side) with cfg, whose Seed, Reward.Lambda and RL.Rounds the study has
// set for this fold, seed and λ. It must be deterministic in its inputs
// and safe to call from several goroutines at once. It is the seam where
// a study can use another training run (a library Run, an offline stage).
type Trainer func(train env.Env, cfg trainer.Config) (metapolicy.Policy, error)

// TrainInMemory is the default Trainer, the online run of `mpdf train`
// without checkpoints: a fresh policy (trainer.NewPolicy), a supervised
// stage cloning cfg.SFT.Labels's actions on every training task when
// cfg.SFT.Epochs > 0, then cfg.RL.Iterations SoftRankPO iterations
// (trainer.RL.Iterate) against the supervised policy as reference. It uses
// the kernel backend on one thread whatever cfg.Backend says, so that a
// fold's bits do not depend on the machine's core count; the study runs
// folds in parallel instead.
func TrainInMemory(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	net, err := trainer.NewPolicy(&cfg, metapolicy.FeatureWidth)
	if err != nil {
		return nil, err
	}
	act, err := nn.ParseActivation(cfg.Activation)
	if err != nil {
		return nil, err
	}
	backend, err := trainer.NewKernelBackend(net.Sizes, act, cfg.Loss, 1)
	if err != nil {
		return nil, err
	}
	defer backend.Close()
	n := train.NumTasks()
	if n == 0 {
		return nil, fmt.Errorf("study: train: no training task")
	}
	if cfg.SFT.Epochs > 0 {
		teacher, err := metapolicy.ParseHeuristic(cfg.SFT.Labels)
		if err != nil {
			return nil, fmt.Errorf("study: train: sft labels: %w", err)
		}
		x, actions, err := trainer.Labels(train, teacher, trainer.IterTasks(cfg.Seed, -1, n, n), cfg.RL.Rounds, cfg.Seed)
		if err != nil {
			return nil, fmt.Errorf("study: train: sft labels: %w", err)
		}
		sft, err := trainer.NewSFT(backend, net, cfg.SFT, cfg.Adam, cfg.Seed)
		if err != nil {
			return nil, err
		}
		for range cfg.SFT.Epochs {
			if _, err := sft.Epoch(x, actions); err != nil {
				return nil, fmt.Errorf("study: train: %w", err)
			}
		}
	}
	rl, err := trainer.NewRL(backend, net, net.Clone(), cfg)
	if err != nil {
		return nil, err
	}
	for it := range cfg.RL.Iterations {
		rl.Progress = float64(it) / float64(cfg.RL.Iterations)
		if _, err := rl.Iterate(train, it); err != nil {
			return nil, fmt.Errorf("study: train: %w", err)
		}
	}
	return metapolicy.NewMLPPolicy("mpdf", net)
}
