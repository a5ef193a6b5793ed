package main

import (
	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
)

func newMergeCmd() *cobra.Command {
	var (
		out       string
		overwrite bool
		maxLine   int
	)
	cmd := command("merge SHARDS... --out FILE", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error {
		m, err := data.MergeShards(args, out, data.MergeOptions{Overwrite: overwrite, MaxLineBytes: maxLine})
		if err != nil {
			return err
		}
		return m.WriteText(cmd.OutOrStdout(), out)
	})
	f := cmd.Flags()
	shared(f, &out, "out", "o", ": the merged episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	shared(f, &overwrite, "overwrite", "")
	addMaxLineFlag(cmd, &maxLine)
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
