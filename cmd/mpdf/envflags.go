package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/cliflag"
)

// addEnvKindFlag adds --kind to a command whose --env (bound to envSpec)
// is recorded with what it trains, as mpdf train's is: the kind becomes
// the spec's kind= part before the command runs, so that a resume or an
// evaluation of the run reopens the transcripts read the same way.
func addEnvKindFlag(cmd *cobra.Command, envSpec *string) {
	var kind answer.Kind
	addKindFlag(cmd.Flags(), &kind, "task of replayed transcripts (as a kind= part of --env)")
	cliflag.BeforeRun(cmd, func() error {
		spec, err := replay.SpecWithKind(*envSpec, kind)
		if err != nil {
			return fmt.Errorf("--kind %s and --env: %w", kind, err)
		}
		*envSpec = spec
		return nil
	})
}

// addEnvCriticFlag adds --critic, the spec's critic=on part given as a
// flag (mpdf study's --critic, which study passes to openEvalEnv itself):
// it becomes part of --env before the command runs, so that a run records
// it and an evaluation weighs it against its checkpoints' as if written in
// the spec.
func addEnvCriticFlag(cmd *cobra.Command, envSpec *string) {
	var on bool
	cmd.Flags().BoolVar(&on, "critic", false, "replay: fill the missing confidence with the critic's read from each answer's text; shorthand for critic=on in --env")
	cliflag.BeforeRun(cmd, func() error {
		spec, err := replay.SpecWithCritic(*envSpec, on)
		if err != nil {
			return fmt.Errorf("--critic and --env: %w", err)
		}
		*envSpec = spec
		return nil
	})
}
