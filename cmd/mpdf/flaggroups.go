package main

// The groups of flags several commands bind the same way, over library
// types (internal/cliflag holds the machinery and no domain package):
// --kind and its parts of --env, the simulator's flags, the transcripts'
// flags, the reward flags, and the training config's values their library
// parses.

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// kindFlag adds --kind: the task of transcripts whose names do not say, read
// when the flags are parsed by answer.ParseKind (answer.Kind is a
// pflag.Value). Every command thus refuses a bad kind with one message
// naming the flag and the kinds, and lists them in its help.
func kindFlag(f *pflag.FlagSet, k *answer.Kind, what string) {
	f.Var(k, "kind", what+", when the file names do not say (gsm is gsm8k)")
}

// envKind adds --kind to a command whose --env (bound to envSpec) is
// recorded with what it trains, as mpdf train's is: the kind becomes the
// spec's kind= part before the command runs, so that a resume or an
// evaluation of the run reopens the transcripts read the same way.
func envKind(cmd *cobra.Command, envSpec *string) {
	var kind answer.Kind
	kindFlag(cmd.Flags(), &kind, "task of replayed transcripts (as a kind= part of --env)")
	intoEnv(cmd, envSpec, func(spec string) (string, error) { return replay.SpecWithKind(spec, kind) }, func() string { return "--kind " + string(kind) })
}

// envCritic adds --critic, the spec's critic=on part given as a flag
// (mpdf study's --critic, which study opens the environment with itself):
// it becomes part of --env before the command runs, so that a run records
// it and an evaluation weighs it against its checkpoints' as if written in
// the spec.
func envCritic(cmd *cobra.Command, envSpec *string) {
	var on bool
	cmd.Flags().BoolVar(&on, "critic", false, "replay: fill the missing confidence with the critic's read from each answer's text; shorthand for critic=on in --env")
	intoEnv(cmd, envSpec, func(spec string) (string, error) { return replay.SpecWithCritic(spec, on) }, func() string { return "--critic" })
}

// intoEnv sets *envSpec to with(*envSpec) once the flags are parsed; an
// error names the flag (flag()) and --env.
func intoEnv(cmd *cobra.Command, envSpec *string, with func(string) (string, error), flag func() string) {
	cliflag.BeforeRun(cmd, func() error {
		spec, err := with(*envSpec)
		if err != nil {
			return fmt.Errorf("%s and --env: %w", flag(), err)
		}
		*envSpec = spec
		return nil
	})
}

// simFlags binds the simulator's configuration flags to cfg: the one definition
// of the commands that play in the simulator (simulate, eval, view, study).
func simFlags(f *pflag.FlagSet, cfg *sim.Config) {
	cliflag.Bind(f, &cfg.Seed, "sim-seed", "", " (difficulties, answers); --seed draws the episodes")
	cliflag.Bind(f, &cfg.Tasks, "sim-tasks", "", fmt.Sprintf(" (0 = %d)", sim.DefaultTasks))
	cliflag.Bind(f, &cfg.Agents, "agents", "", fmt.Sprintf(" in the simulator (0 = %d)", sim.DefaultAgents))
	cliflag.Bind(f, &cfg.MissingConfidence, "missing-confidence", "")
}

// transcriptFlags say how to read transcripts whose names do not: the flags of
// the commands that read transcript files (import, data corpus).
type transcriptFlags struct {
	kind          answer.Kind
	model, layout string
}

// Add binds --kind, --layout and --model on f.
func (t *transcriptFlags) Add(f *pflag.FlagSet) {
	kindFlag(f, &t.kind, "task of every file")
	cliflag.Bind(f, &t.layout, "layout", "")
	cliflag.Bind(f, &t.model, "model", "", "; here a label for the reports, when the names do not say")
}

// Inputs expands the transcript arguments (transcript.Glob) and parses the
// flags into transcript.Options.
func (t *transcriptFlags) Inputs(args []string) ([]string, transcript.Options, error) {
	opts := transcript.Options{Model: t.model, Task: t.kind}
	paths, err := transcript.Glob(args)
	if err != nil {
		return nil, opts, err
	}
	if opts.Layout, err = transcript.ParseLayout(t.layout); err != nil {
		return nil, opts, fmt.Errorf("--layout: %w", err)
	}
	return paths, opts, nil
}

// bindReward binds the reward and grouping flags (design §2, §3) to c: the
// one definition of train and the data commands.
func bindReward(fs *pflag.FlagSet, c *data.RewardConfig) {
	fs.Float64Var(&c.WLocal, "w-local", c.WLocal, cliflag.Usage("w-local")+" (the agent's own answer became right/wrong)")
	fs.Float64Var(&c.WGlobal, "w-global", c.WGlobal, cliflag.Usage("w-global")+" (the agent made the team answer right/wrong, leave-one-out)")
	fs.Float64Var(&c.Lambda, "lambda", c.Lambda, cliflag.Usage("lambda")+", on the decision's turn")
	fs.Var(&c.GroupBy, "group-by", cliflag.Usage("group-by"))
}

// checkReward refuses a reward config given on the command line that the
// data package would misread (data.RewardConfig.ValidateGiven), in the
// words of the flags.
func checkReward(c data.RewardConfig) error {
	switch err := c.ValidateGiven(); {
	case errors.Is(err, data.ErrConstantReward):
		return errors.New("--w-local, --w-global and --lambda are all 0: the reward would be constant")
	case err != nil:
		return fmt.Errorf("reward flags: %w", err)
	}
	return nil
}

// rewardFlags is the reward and grouping of decisions made from episodes, the
// flags of the data commands that reward them, bound as train binds them.
type rewardFlags struct{ c data.RewardConfig }

// Add binds the reward flags on cmd, set to data's defaults.
func (r *rewardFlags) Add(cmd *cobra.Command) {
	r.c = data.DefaultRewardConfig()
	bindReward(cmd.Flags(), &r.c)
}

// Changed reports whether any reward flag was given.
func (r *rewardFlags) Changed(cmd *cobra.Command) bool {
	return len(cliflag.Given(cmd.Flags(), "w-local", "w-global", "lambda", "group-by")) > 0
}

// Config is the reward the flags give, checked (checkReward).
func (r *rewardFlags) Config() (data.RewardConfig, error) { return r.c, checkReward(r.c) }

// hiddenValue, lossValue and agentPolicyValue are the flags of the
// training config's fields whose values their library parses and prints
// (train and study bind them).
func hiddenValue(p *[]int) pflag.Value {
	return cliflag.Parsed(p, "sizes", nn.ParseHidden, nn.FormatHidden)
}
func lossValue(p *string) pflag.Value {
	return cliflag.Parsed(p, "loss", nn.ParseLossKind, nn.LossName)
}
func agentPolicyValue(p *string) pflag.Value {
	return cliflag.Parsed(p, "string", metapolicy.ParseAgentPolicyField, metapolicy.AgentPolicyName)
}
