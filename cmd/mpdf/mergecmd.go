package main

import (
	"github.com/spf13/cobra"

	"fmt"
	"os"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/internal/cliflag"
)

// mergeFlags are data merge's flags.
type mergeFlags struct {
	out, cache        string
	overwrite, others bool
	maxLine           int
}

func (fl *mergeFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the merged episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	shared(f, &fl.overwrite, "overwrite", "")
	f.BoolVar(&fl.others, "allow-other-build", false, "merge shards collected by different builds of mpdf (recorded in --out's .merge.json)")
	f.StringVar(&fl.cache, "cache-out", "", "also join the shards' response caches (FILE.cache beside each shard) into this cache file")
	cliflag.MaxLine(cmd, &fl.maxLine)
	_ = cmd.MarkFlagRequired("out")
}

// Run merges the collection shards args name (data.MergeShards).
func (fl *mergeFlags) Run(cmd *cobra.Command, args []string) error {
	m, err := data.MergeShards(args, fl.out, data.MergeOptions{Overwrite: fl.overwrite, MaxLineBytes: fl.maxLine, AllowOtherBuild: fl.others})
	if err != nil {
		return err
	}
	if err := m.WriteText(cmd.OutOrStdout(), fl.out); err != nil || fl.cache == "" {
		return err
	}
	var caches []string
	for _, s := range args {
		if _, err := os.Stat(llm.CachePath(s)); err == nil {
			caches = append(caches, llm.CachePath(s))
		}
	}
	n, err := llm.MergeCaches(fl.cache, caches)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(cmd.OutOrStdout(), "joined %d shard caches into %s: %d responses added\n", len(caches), fl.cache, n)
	return err
}
