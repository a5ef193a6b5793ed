package main

import (
	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data/corpus"
)

func newCorpusCmd() *cobra.Command {
	var (
		tf     transcriptFlags
		asJSON bool
	)
	cmd := command("corpus TRANSCRIPTS... [--json]", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error {
		paths, opts, err := tf.inputs(args)
		if err != nil {
			return err
		}
		c, err := corpus.Read(paths, opts)
		if err != nil {
			return err
		}
		if asJSON {
			return printJSON(cmd.OutOrStdout(), c)
		}
		return corpus.Write(cmd.OutOrStdout(), c)
	})
	f := cmd.Flags()
	tf.add(f)
	shared(f, &asJSON, "json", "")
	return cmd
}
