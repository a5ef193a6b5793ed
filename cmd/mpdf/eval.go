package main

import (
	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/internal/progress"
)

func init() {
	register[evalFlags]("eval [--env sim|"+replay.Syntax+"] [--policy SPEC,...] [flags]", cobra.NoArgs)
}

// evalFlags are eval's flags: what is played (open.EvalConfig) and how.
type evalFlags struct {
	cfg           open.EvalConfig
	quiet, asJSON bool
}

// Add defines the flags on cmd: what is played and how, and the output's.
func (fl *evalFlags) Add(cmd *cobra.Command) {
	fl.addPlay(cmd)
	kindFlag(cmd.Flags(), &fl.cfg.Kind, "task of replayed transcripts (as a kind= part of --env)")
	shared(cmd.Flags(), &fl.asJSON, "json", "", ": an array of results")
}

// addPlay defines the flags that say what is played and how: eval's, and
// view's when it plays policies as eval does.
func (fl *evalFlags) addPlay(cmd *cobra.Command) {
	f, c := cmd.Flags(), &fl.cfg
	shared(f, &c.Env, "env", "")
	shared(f, &c.Policies, "policy", "p", "; several: repeat it or separate them by commas")
	shared(f, &c.NoBaselines, "no-baselines", "")
	shared(f, &c.Tasks, "tasks", "", "; the first of the environment or of the --split side")
	shared(f, &c.Episodes, "episodes", "")
	shared(f, &c.Rounds, "rounds", "", " (0 = 3 in the simulator, the most recorded in a replay)")
	shared(f, &c.Seed, "seed", "", ": the episodes"+seedWas0)
	shared(f, &c.Split, "split", "", " (default: all, but test for a checkpoint trained on a replay split)")
	shared(f, &c.HeldOut, "held-out", "", " by --split")
	shared(f, &c.SplitSeed, "split-seed", "")
	shared(f, &c.Greedy, "greedy", "", " (default on a replay: --greedy=false samples; heuristics unaffected)")
	shared(f, &c.Lambda, "lambda", "", ": the verdict's price of tokens (0: accuracy alone)")
	shared(f, &c.Workers, "workers", "")
	shared(f, &fl.quiet, "quiet", "q")
	simFlags(cmd.Flags(), &c.Sim)
	envCritic(cmd, &c.Env)
}

// Run opens the evaluation, plays it and prints.
func (fl *evalFlags) Run(cmd *cobra.Command, _ []string) error {
	ev, err := fl.open(cmd)
	if err != nil {
		return err
	}
	bar, done := progress.Lazy("eval", fl.quiet)
	results, err := ev.Evaluate(bar)
	if err != nil {
		return err // the bar stays where it stood
	}
	done()
	if fl.asJSON {
		return results.WriteJSON(cmd.OutOrStdout())
	}
	return ev.WriteText(cmd.OutOrStdout(), results)
}

// open opens what the flags say to play (open.Eval), with the
// checkpoints' defaults said on stderr.
func (fl *evalFlags) open(cmd *cobra.Command) (*open.Evaluation, error) {
	c, f := fl.cfg, cmd.Flags()
	c.EnvGiven, c.HeldOutGiven, c.SplitSeedGiven, c.GreedyGiven = f.Changed("env"), f.Changed("held-out"), f.Changed("split-seed"), f.Changed("greedy")
	c.Notes, c.Log = cmd.ErrOrStderr(), cliflag.LogUnless(fl.quiet, cmd.ErrOrStderr())
	return open.Eval(c)
}
