package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/study"
)

// runStudyShard runs the --shard of a study into --out (study.RunShard).
func runStudyShard(cmd *cobra.Command, e env.Env, fl *studyFlags) error {
	if fl.shard == "" {
		return errors.New("--resume continues a --shard run: give --shard K/N")
	}
	if fl.ablate != "" {
		return errors.New("--ablate runs in one process: it takes no --shard")
	}
	k, n, err := data.ParseShard(fl.shard)
	if err != nil {
		return fmt.Errorf("--shard: %w", err)
	}
	bar := newBar(0, fmt.Sprintf("study shard %d/%d (cells)", k, n), fl.quiet)
	cfg := fl.cfg
	cfg.Progress = func(done, total int) { bar.SetTotal(total); _ = bar.Set(done) }
	r, err := study.RunShard(e, cfg, fl.out, study.ShardOptions{Shard: k, Shards: n, Resume: fl.resume, Overwrite: fl.overwrite})
	if errors.Is(err, study.ErrNotEmpty) {
		return fmt.Errorf("--out: %w: give a new --out, --resume to continue this shard, or --overwrite to replace it", err)
	}
	if err != nil {
		bar.Exit()
		return err
	}
	_ = bar.Finish()
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "study shard %d/%d: %d of the study's %d cells (kept %d, ran %d); wrote %s\n",
		k, n, r.ShardCells, r.Record.Cells, r.Kept, r.Ran, r.Path)
	return err
}

func newStudyMergeCmd() *cobra.Command {
	var (
		out               string
		overwrite, asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "merge SHARD_DIR... --out DIR",
		Short: "Join the outputs of mpdf study --shard K/N into the unsharded study's results.json, report.md and pareto.png",
		Long: `Merge joins the directories of mpdf study --shard 0/N ... N-1/N (in any
order) into --out: results.json, report.md and pareto.png byte for byte the
study's run in one process, and prints report.md (or the summary as JSON
with --json).

Each shard's study-shard.json says which shard it is, holds its finished
cells' rows, and hashes what shapes them (the study flags, the transcript
files, the environment's play, the mpdf build). A directory without one, a
shard given twice, a missing shard, shards of different N or inputs, and a
shard with cells not done (resume it first) are refused, naming the shard;
nothing is written then.`,
		Example: `  mpdf study merge runs/study-0 runs/study-1 runs/study-2 --out runs/study`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := study.MergeShards(args, out)
			if err != nil {
				return err
			}
			dir, err := study.OpenDir(out, overwrite)
			if errors.Is(err, study.ErrNotEmpty) {
				return fmt.Errorf("--out: %w: give a new --out, or --overwrite to replace that study's files", err)
			}
			if err != nil {
				return err
			}
			defer dir.Close()
			return dir.Publish(s, cmd.OutOrStdout(), asJSON)
		},
	}
	f := cmd.Flags()
	f.StringVar(&out, "out", "", "directory of the merged results.json, report.md and pareto.png (required)")
	f.BoolVar(&overwrite, "overwrite", false, "write into an --out that holds another study, removing that study's files")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON instead of report.md")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
