package main

import (
	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
)

// mergeFlags are data merge's flags.
type mergeFlags struct {
	out       string
	overwrite bool
	maxLine   int
}

func (fl *mergeFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the merged episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	shared(f, &fl.overwrite, "overwrite", "")
	addMaxLineFlag(cmd, &fl.maxLine)
	_ = cmd.MarkFlagRequired("out")
}

// run merges the collection shards args name (data.MergeShards).
func (fl *mergeFlags) run(cmd *cobra.Command, args []string) error {
	m, err := data.MergeShards(args, fl.out, data.MergeOptions{Overwrite: fl.overwrite, MaxLineBytes: fl.maxLine})
	if err != nil {
		return err
	}
	return m.WriteText(cmd.OutOrStdout(), fl.out)
}
