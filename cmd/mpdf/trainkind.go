package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/replay"
)

// addEnvKindFlag adds --kind to a command whose --env (bound to envSpec)
// is recorded with what it trains, as mpdf train's is: the kind is folded
// into the spec as its kind= part before the command runs, so that a
// resume or an evaluation of the run reopens the transcripts read the
// same way. mpdf eval and mpdf study take --kind the same way.
func addEnvKindFlag(cmd *cobra.Command, envSpec *string) {
	var kind transcript.Task
	addKindFlag(cmd.Flags(), &kind, "task of replayed transcripts (as a kind= part of --env)")
	pre := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if kind != "" {
			spec, err := replay.SpecWithKind(*envSpec, kind)
			if err != nil {
				return fmt.Errorf("--kind %s and --env: %w", kind, err)
			}
			*envSpec = spec
		}
		if pre != nil {
			return pre(cmd, args)
		}
		return nil
	}
}
