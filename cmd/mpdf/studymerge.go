package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/progress"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/shards"
)

// runStudyShard runs the --shard of a study into --out (shards.Run).
func runStudyShard(cmd *cobra.Command, e env.Env, fl *studyFlags) error {
	if fl.shard == "" {
		return errors.New("--resume continues a --shard run: give --shard K/N")
	}
	if fl.ablate != "" {
		return errors.New("--ablate runs in one process: it takes no --shard")
	}
	k, n, err := data.ParseShard(fl.shard)
	if err != nil {
		return fmt.Errorf("--%w", err) // data.ParseShard says shard "K/N": as collect words it
	}
	bar := progress.New(0, fmt.Sprintf("study shard %d/%d (cells)", k, n), fl.quiet)
	cfg := fl.cfg
	cfg.Progress = bar.Grow()
	r, err := shards.Run(e, cfg, fl.out, shards.Options{Shard: k, Shards: n, Resume: fl.resume, Overwrite: fl.overwrite})
	bar.Done(err)
	if err != nil {
		return err
	}
	return r.WriteText(cmd.OutOrStdout())
}

// studyMergeFlags are study merge's flags.
type studyMergeFlags struct {
	out               string
	overwrite, asJSON bool
}

func (fl *studyMergeFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the merged study's directory (required)")
	shared(f, &fl.overwrite, "overwrite", "")
	shared(f, &fl.asJSON, "json", "")
	_ = cmd.MarkFlagRequired("out")
}

// Run merges the study shards args name into --out and prints its report
// (shards.Merge, study.Dir.Publish).
func (fl *studyMergeFlags) Run(cmd *cobra.Command, args []string) error {
	s, err := shards.Merge(args, fl.out)
	if err != nil {
		return err
	}
	dir, err := study.OpenDir(fl.out, fl.overwrite)
	if err != nil {
		return err
	}
	defer dir.Close()
	return dir.Publish(s, cmd.OutOrStdout(), fl.asJSON)
}
