package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/study/signals"
	"github.com/mpdf/mpdf/trainer/teacher"
)

// openReplay loads transcript files (globs allowed) as a replay, with its
// readability reports on cmd's stderr unless quiet.
func openReplay(cmd *cobra.Command, args []string, kind answer.Kind, quiet bool, opts ...replay.Option) (*replay.Env, error) {
	return replay.Open(replay.Spec{Globs: args, Options: transcript.Options{Task: kind}}, logUnless(quiet, cmd.ErrOrStderr()), opts...)
}

func newSignalCmd() *cobra.Command {
	var (
		policy   string
		kind     answer.Kind
		episodes int
		seed     uint64
		asJSON   bool
		quiet    bool
		critic   bool
	)
	cmd := command("signal TRANSCRIPTS...", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error {
		// With critic: the critic's confidence as the turns' and its
		// candidates, which read the texts.
		e, err := openReplay(cmd, args, kind, quiet, replay.WithCritic(critic), replay.WithText(critic))
		if err != nil {
			return err
		}
		pol, err := checkpoints.ResolvePolicy(policy)
		if err != nil {
			return fmt.Errorf("--policy: %w", err)
		}
		rep, err := signals.Measure(e, pol, signals.Options{Rounds: e.Rounds(), Episodes: episodes, Seed: seed}, signals.Candidates())
		if err != nil {
			return err
		}
		return show(cmd, asJSON, rep, rep.WriteTable)
	})
	f := cmd.Flags()
	shared(f, &policy, "policy", "", "; the behaviour whose decisions are measured")
	addKindFlag(f, &kind, "task of the transcripts")
	shared(f, &episodes, "episodes", "")
	shared(f, &seed, "seed", "")
	shared(f, &asJSON, "json", "")
	shared(f, &quiet, "quiet", "q")
	shared(f, &critic, "critic", "", ", and measure the critic's candidates")
	return cmd
}

func newHindsightCmd() *cobra.Command {
	var (
		lambdas = []float64{0}
		kind    answer.Kind
		maxExh  int
		groupBy string
		workers int
		asJSON  bool
		quiet   bool
	)
	cmd := command("hindsight TRANSCRIPTS...", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error {
		e, err := openReplay(cmd, args, kind, quiet)
		if err != nil {
			return err
		}
		group, err := e.Grouper(groupBy)
		if err != nil {
			return fmt.Errorf("--by %w", err)
		}
		all, err := teacher.SearchLambdas(e, lambdas, teacher.CeilingOptions{Config: teacher.Config{Rounds: e.Rounds(), MaxExhaustive: maxExh},
			Workers: workers, Group: group, Progress: lazyBar(quiet), Log: logUnless(quiet, cmd.ErrOrStderr())})
		if err != nil {
			return err
		}
		return show(cmd, asJSON, all, func(w io.Writer) error { return teacher.WriteSummaries(w, all) })
	})
	f := cmd.Flags()
	f.Var(cliflag.NewFloats(&lambdas), "lambdas", usageOf("lambdas")+": one search with each")
	addKindFlag(f, &kind, "task of the transcripts")
	f.IntVar(&maxExh, "max-exhaustive", teacher.DefaultMaxExhaustive, "most plans tried one by one per question")
	shared(f, &groupBy, "by", "", ": file or model (default: pooled only)")
	shared(f, &workers, "workers", "")
	shared(f, &asJSON, "json", "")
	shared(f, &quiet, "quiet", "q")
	return cmd
}
