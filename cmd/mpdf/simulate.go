package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/env/sim/calibrate"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/internal/progress"
	"github.com/mpdf/mpdf/outfile"
)

func init() { register[simulateFlags]("simulate --out FILE.jsonl[.gz|.zst] [flags]", cobra.NoArgs) }

// simulateFlags are simulate's flags.
type simulateFlags struct {
	cfg                              sim.Config
	policy, out, paramsOut           string
	tasks, episodes, rounds, workers int
	maxLine                          int
	seed                             uint64
	greedy, quiet, asJSON, signals   bool
	calibrate                        []string
	kind                             answer.Kind
}

// Add defines the flags on cmd.
func (fl *simulateFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.policy, "policy", "p", "; it chooses the actions")
	shared(f, &fl.out, "out", "o", ": the episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	shared(f, &fl.tasks, "tasks", "", "; the first of the pool")
	shared(f, &fl.episodes, "episodes", "")
	shared(f, &fl.rounds, "rounds", "")
	shared(f, &fl.seed, "seed", "", ": the episodes (environment draws and action sampling)"+seedWas0)
	shared(f, &fl.greedy, "greedy", "")
	shared(f, &fl.workers, "workers", "")
	shared(f, &fl.quiet, "quiet", "q")
	shared(f, &fl.asJSON, "json", "")
	f.StringSliceVar(&fl.calibrate, "calibrate", nil, "fit the simulator to these LLM-Debate transcripts (globs) and print the fit, instead of playing")
	kindFlag(f, &fl.kind, "task of the --calibrate transcripts")
	f.StringVar(&fl.paramsOut, "params-out", "", "with --calibrate: write the fitted parameters to this JSON file")
	f.BoolVar(&fl.signals, "signals", false, "print each feature's AUC for correctness on the simulator's debate episodes, instead of playing")
	cliflag.MaxLine(cmd, &fl.maxLine)
	simFlags(cmd.Flags(), &fl.cfg)
}

// Run plays, calibrates or measures, as the flags ask.
func (fl *simulateFlags) Run(cmd *cobra.Command, _ []string) error {
	switch {
	case len(fl.calibrate) > 0:
		return runCalibrate(cmd, fl)
	case fl.paramsOut != "":
		return fmt.Errorf("--params-out needs --calibrate")
	case fl.signals:
		sig, err := calibrate.MeasureSimulatorSignals(fl.cfg, env.RunOptions{NumTasks: fl.tasks, Rounds: fl.rounds, Seed: fl.seed, Workers: fl.workers})
		if err != nil {
			return err
		}
		return cliflag.Show(cmd, fl.asJSON, sig, sig.WriteText)
	case fl.out == "":
		return fmt.Errorf("--out is required (unless --calibrate or --signals)")
	}
	pol, err := checkpoints.ResolvePolicy(fl.policy)
	if err != nil {
		return err
	}
	if err := outfile.NotAnInput(fl.out, pol.Path); err != nil {
		return err
	}
	sim, err := sim.New(fl.cfg)
	if err != nil {
		return err
	}
	bar, done := progress.Lazy("simulate", fl.quiet)
	rec, err := env.Record(sim, pol, env.RunOptions{
		NumTasks: fl.tasks, Episodes: fl.episodes, Rounds: fl.rounds, Seed: fl.seed,
		Greedy: fl.greedy && pol.Learned, Workers: fl.workers, Progress: bar,
	}, fl.out, fl.maxLine)
	done()
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, rec, rec.WriteText)
}

// runCalibrate fits the simulator to transcripts and prints the fit.
func runCalibrate(cmd *cobra.Command, fl *simulateFlags) error {
	source := fmt.Sprintf("mpdf simulate --calibrate '%s' --seed %d", strings.Join(fl.calibrate, ","), fl.seed)
	c, err := calibrate.Fit(fl.calibrate, transcript.Options{Task: fl.kind}, calibrate.Options{Source: source, Seed: fl.seed, Workers: fl.workers},
		fl.paramsOut, cliflag.LogUnless(fl.quiet, cmd.ErrOrStderr()))
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, c, func(w io.Writer) error { return c.WriteReport(w, fl.paramsOut) })
}
