package main

import (
	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/cliflag"
)

// mergeFlags are data merge's flags.
type mergeFlags struct {
	out       string
	overwrite bool
	maxLine   int
}

func (fl *mergeFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the merged episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	shared(f, &fl.overwrite, "overwrite", "")
	cliflag.MaxLine(cmd, &fl.maxLine)
	_ = cmd.MarkFlagRequired("out")
}

// Run merges the collection shards args name (data.MergeShards).
func (fl *mergeFlags) Run(cmd *cobra.Command, args []string) error {
	m, err := data.MergeShards(args, fl.out, data.MergeOptions{Overwrite: fl.overwrite, MaxLineBytes: fl.maxLine})
	if err != nil {
		return err
	}
	return m.WriteText(cmd.OutOrStdout(), fl.out)
}
