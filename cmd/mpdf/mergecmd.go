package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
)

func newMergeCmd() *cobra.Command {
	var (
		out       string
		overwrite bool
		maxLine   int
	)
	cmd := &cobra.Command{
		Use:   "merge SHARDS... --out FILE",
		Short: "Join the outputs of collect --shard K/N into the unsharded collection's file",
		Long: `Merge joins the episodes files of mpdf collect --shard 0/N ... N-1/N
into --out, in the order one collection of every task writes them (the tasks
file's order, then the episode index), each episode its own compressed
member: the same bytes as the collection run unsharded and uninterrupted.

Each shard's record (FILE.shard.json, written by collect beside FILE) says
which shard it is and hashes what shapes its episodes (tasks, policy, seed,
rounds, team, model...). A shard without its record, a shard given twice, a
missing shard, shards of different N or inputs, and a shard that does not
hold all of its episodes (resume it first) are refused, naming the file;
nothing is written then.`,
		Example: `  mpdf data merge runs/live-0.jsonl runs/live-1.jsonl runs/live-2.jsonl --out runs/live.jsonl`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkMaxLine(maxLine); err != nil {
				return err
			}
			m, err := data.MergeShards(args, out, data.MergeOptions{Overwrite: overwrite, MaxLineBytes: maxLine})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(cmd.OutOrStdout(), "merged %d shards: %d episodes of %d tasks to %s\n", m.Shards, m.Episodes, m.Tasks, out)
			return err
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "out", "o", "", "merged episodes file: .jsonl, .jsonl.gz or .jsonl.zst (required)")
	f.BoolVar(&overwrite, "overwrite", false, "replace an existing --out")
	addMaxLineFlag(cmd, &maxLine)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
