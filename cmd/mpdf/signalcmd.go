package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/internal/progress"
	"github.com/mpdf/mpdf/study/signals"
	"github.com/mpdf/mpdf/trainer/teacher"
)

// openReplay loads transcript files (globs allowed) as a replay, with its
// readability reports on cmd's stderr unless quiet.
func openReplay(cmd *cobra.Command, args []string, kind answer.Kind, quiet bool, opts ...replay.Option) (*replay.Env, error) {
	return open.Replay(replay.Spec{Globs: args, Options: transcript.Options{Task: kind}}, cliflag.LogUnless(quiet, cmd.ErrOrStderr()), opts...)
}

// signalFlags are data signal's flags.
type signalFlags struct {
	policy                string
	kind                  answer.Kind
	episodes              int
	seed                  uint64
	asJSON, quiet, critic bool
}

func (fl *signalFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.policy, "policy", "p", "; the behaviour whose decisions are measured")
	kindFlag(f, &fl.kind, "task of the transcripts")
	shared(f, &fl.episodes, "episodes", "")
	shared(f, &fl.seed, "seed", "")
	shared(f, &fl.asJSON, "json", "")
	shared(f, &fl.quiet, "quiet", "q")
	shared(f, &fl.critic, "critic", "", ", and measure the critic's candidates")
}

// Run measures the features' signals on the transcripts args name
// (signals.Measure).
func (fl *signalFlags) Run(cmd *cobra.Command, args []string) error {
	// With critic: the critic's confidence as the turns' and its
	// candidates, which read the texts.
	e, err := openReplay(cmd, args, fl.kind, fl.quiet, replay.WithCritic(fl.critic), replay.WithText(fl.critic))
	if err != nil {
		return err
	}
	pol, err := checkpoints.ResolvePolicy(fl.policy)
	if err != nil {
		return fmt.Errorf("--policy: %w", err)
	}
	rep, err := signals.Measure(e, pol, signals.Options{Rounds: e.Rounds(), Episodes: fl.episodes, Seed: fl.seed}, signals.Candidates())
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, rep, rep.WriteTable)
}

// hindsightFlags are data hindsight's flags.
type hindsightFlags struct {
	lambdas         []float64
	kind            answer.Kind
	maxExh, workers int
	groupBy         string
	asJSON, quiet   bool
}

func (fl *hindsightFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	fl.lambdas = []float64{0}
	f.Var(cliflag.NewFloats(&fl.lambdas), "lambdas", usageOf("lambdas")+": one search with each")
	kindFlag(f, &fl.kind, "task of the transcripts")
	f.IntVar(&fl.maxExh, "max-exhaustive", teacher.DefaultMaxExhaustive, "most plans tried one by one per question")
	shared(f, &fl.groupBy, "by", "", ": file or model (default: pooled only)")
	shared(f, &fl.workers, "workers", "")
	shared(f, &fl.asJSON, "json", "")
	shared(f, &fl.quiet, "quiet", "q")
}

// Run searches the best plans in hindsight on the transcripts args name
// (teacher.SearchLambdas).
func (fl *hindsightFlags) Run(cmd *cobra.Command, args []string) error {
	e, err := openReplay(cmd, args, fl.kind, fl.quiet)
	if err != nil {
		return err
	}
	group, err := e.Grouper(fl.groupBy)
	if err != nil {
		return fmt.Errorf("--by %w", err)
	}
	all, err := teacher.SearchLambdas(e, fl.lambdas, teacher.CeilingOptions{Config: teacher.Config{Rounds: e.Rounds(), MaxExhaustive: fl.maxExh},
		Workers: fl.workers, Group: group, Progress: func(l string) (func(int, int), func()) { return progress.Lazy(l, fl.quiet) }, Log: cliflag.LogUnless(fl.quiet, cmd.ErrOrStderr())})
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, all, func(w io.Writer) error { return teacher.WriteSummaries(w, all) })
}
