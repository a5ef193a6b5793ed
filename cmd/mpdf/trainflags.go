package main

import (
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// bindConfig binds the training flags to the fields of c. It is called
// twice: on the command's own config (whose defaults the help shows) and on
// a config loaded from --config, onto which the changed flags are replayed,
// so that flags win over the file and the file over the defaults.
func bindConfig(fs *pflag.FlagSet, c *trainer.Config) {
	fs.Uint64Var(&c.Seed, "seed", c.Seed, usageOf("seed")+": initialisation, sampling, shuffling")
	fs.Var(hiddenValue(&c.Hidden), "hidden", usageOf("hidden")+", comma-separated")
	fs.StringVar(&c.Activation, "activation", c.Activation, "hidden activation: tanh or relu")
	fs.StringVar(&c.Backend, "backend", c.Backend, "loss and gradients: kernel (fast CPU kernels) or gorgonia (autodiff graph)")
	fs.StringVar(&c.Estimator, "estimator", c.Estimator, "advantage estimator: softrank, grpo, drgrpo, rloo, reinforce")
	fs.Float64Var(&c.Tau, "tau", c.Tau, "SoftRankPO temperature τ")
	fs.Var(lossValue(&c.Loss.Kind), "loss", usageOf("loss"))
	fs.Var(agentPolicyValue(&c.AgentPolicy), "agent-policy", usageOf("agent-policy")+"; each agent's network sees only its own observation; online only")
	fs.Float64Var(&c.Loss.EpsLow, "eps-low", c.Loss.EpsLow, "ratio clip below, 1 − ε_low")
	fs.Float64Var(&c.Loss.EpsHigh, "eps-high", c.Loss.EpsHigh, "ratio clip above, 1 + ε_high")
	fs.Float64Var(&c.Loss.Beta, "beta", c.Loss.Beta, "KL penalty coefficient β (rank-match: the implicit reward's scale)")
	fs.Float64Var(&c.Loss.Entropy, "entropy", c.Loss.Entropy, "entropy bonus coefficient c_H")
	fs.Float64Var(&c.Adam.LR, "lr", c.Adam.LR, usageOf("lr"))
	fs.Float64Var(&c.MaxGradNorm, "max-grad-norm", c.MaxGradNorm, "global gradient-norm clip (0: none)")
	bindReward(fs, &c.Reward)
	fs.Var(creditFlag(&c.Credit), "credit", usageOf("credit")+"; recorded in checkpoints")
	fs.Float64Var(&c.Reward.Gamma, "gamma", c.Reward.Gamma, usageOf("gamma")+"; per agent over its episode's later rounds, recorded in checkpoints")
	fs.IntVar(&c.SFT.Epochs, "sft-epochs", c.SFT.Epochs, usageOf("sft-epochs")+" (0 skips it)")
	fs.IntVar(&c.SFT.BatchSize, "sft-batch-size", c.SFT.BatchSize, "minibatch rows of the supervised stage")
	fs.Float64Var(&c.SFT.LR, "sft-lr", c.SFT.LR, "Adam learning rate of the supervised stage")
	fs.StringVar(&c.SFT.Labels, "sft-labels", c.SFT.Labels, usageOf("sft-labels")+", online: a heuristic, hindsight (the best plan per training question), pivotal[:K] (the decisions that change the team's result, K DAgger rounds) or pivotal:P (those decisions on protocol P's play, P's action elsewhere; P: majority, debate, gate, until-consensus)")
	fs.Var(trainer.ArchValue{P: &c.Arch}, "arch", "network: mlp, or attention (attends from the agent to each peer; reads "+metapolicy.FeatureVersionPeers+")")
	fs.Var(trainer.AttnDimValue{P: &c.AttnDim}, "attn-dim", "attention width d of --arch attention")
	fs.StringVar(&c.Features, "features", c.Features, usageOf("features")+", online ("+metapolicy.FeatureVersion+" by default); checkpoints record it")
	fs.IntVar(&c.RL.Iterations, "iterations", c.RL.Iterations, usageOf("iterations")+": rollout batches (online) or passes over the data (offline)")
	fs.IntVar(&c.RL.BatchSize, "batch-size", c.RL.BatchSize, "RL minibatch rows (whole groups, so approximate)")
	fs.IntVar(&c.RL.UpdateEpochs, "update-epochs", c.RL.UpdateEpochs, "update epochs over each rollout batch")
	fs.Float64Var(&c.RL.KLTarget, "kl-target", c.RL.KLTarget, "stop a batch's update epochs when approx KL(μ‖π) passes it (0: never)")
	fs.StringVar(&c.RL.Schedule, "schedule", c.RL.Schedule, "learning-rate schedule: constant, linear or cosine")
	fs.IntVar(&c.RL.Warmup, "warmup", c.RL.Warmup, "learning-rate warm-up steps")
	fs.IntVar(&c.RL.TasksPerIter, "tasks-per-iter", c.RL.TasksPerIter, usageOf("tasks-per-iter")+" (online)")
	fs.IntVar(&c.RL.EpisodesPerTask, "episodes-per-task", c.RL.EpisodesPerTask, usageOf("episodes-per-task")+" (online)")
	fs.IntVar(&c.RL.Rounds, "rounds", c.RL.Rounds, usageOf("rounds")+" per episode (online)")
	fs.IntVar(&c.MaxBadSteps, "max-bad-steps", c.MaxBadSteps, "stop after this many non-finite steps in a row")
}

// resolveConfig returns base (the defaults, or the config of the run being
// resumed), overlaid by the JSON file path (when not empty;
// trainer.ReadConfigFile), overlaid by the flags of fs that the user set.
func resolveConfig(base trainer.Config, path string, fs *pflag.FlagSet) (trainer.Config, error) {
	cfg := base
	if path != "" {
		var err error
		if cfg, err = trainer.ReadConfigFile(base, path); err != nil {
			return cfg, err
		}
	}
	if err := cliflag.Overlay(fs, func(onto *pflag.FlagSet) { bindConfig(onto, &cfg) }); err != nil {
		return cfg, err
	}
	if err := checkReward(cfg.Reward); err != nil {
		return cfg, err
	}
	cfg.SettleFeatures(fs.Changed("features"))
	return cfg, cfg.Validate()
}

// creditFlag is --credit (trainer.ParseCredit): "" shows as taken.
func creditFlag(p *string) pflag.Value {
	return cliflag.Parsed(p, "credit", trainer.ParseCredit, func(s string) string {
		if s == "" {
			return trainer.CreditTaken
		}
		return s
	})
}
