package main

import (
	"io"

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
		return show(cmd, asJSON, c, func(w io.Writer) error { return corpus.Write(w, c) })
	})
	f := cmd.Flags()
	tf.add(f)
	shared(f, &asJSON, "json", "")
	return cmd
}
