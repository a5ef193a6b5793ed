package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data/corpus"
)

// corpusFlags are data corpus' flags.
type corpusFlags struct {
	tf     transcriptFlags
	asJSON bool
}

func (fl *corpusFlags) add(cmd *cobra.Command) {
	fl.tf.add(cmd.Flags())
	shared(cmd.Flags(), &fl.asJSON, "json", "")
}

// run describes the transcripts args name (corpus.Read).
func (fl *corpusFlags) run(cmd *cobra.Command, args []string) error {
	paths, opts, err := fl.tf.inputs(args)
	if err != nil {
		return err
	}
	c, err := corpus.Read(paths, opts)
	if err != nil {
		return err
	}
	return show(cmd, fl.asJSON, c, func(w io.Writer) error { return corpus.Write(w, c) })
}
