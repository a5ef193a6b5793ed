package main

import (
	"io"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data/corpus"
	"github.com/mpdf/mpdf/internal/cliflag"
)

// corpusFlags are data corpus' flags.
type corpusFlags struct {
	tf     transcriptFlags
	asJSON bool
}

func (fl *corpusFlags) Add(cmd *cobra.Command) {
	fl.tf.Add(cmd.Flags())
	shared(cmd.Flags(), &fl.asJSON, "json", "")
}

// Run describes the transcripts args name (corpus.Read).
func (fl *corpusFlags) Run(cmd *cobra.Command, args []string) error {
	paths, opts, err := fl.tf.Inputs(args)
	if err != nil {
		return err
	}
	c, err := corpus.Read(paths, opts)
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, c, func(w io.Writer) error { return corpus.Write(w, c) })
}
