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
	cmd := &cobra.Command{
		Use:   "corpus TRANSCRIPTS... [--json]",
		Short: "Tabulate a set of debate transcripts",
		Long: `Corpus reads debate transcripts (any layout import reads) and prints one
row per file: task, model(s), agents × answers per agent, questions, the
unreadable share of each round's answers, the round-0 and final-round
majority accuracy, the share of questions whose round 0 is unanimous, and
how often an agent's revision fixed (wrong → right) or broke (right →
wrong) its answer; then a pooled row, where a question debated in several
files (same task and text) counts once. "shared" counts such questions.`,
		Example: `  mpdf data corpus ../shared/data/debates/*/*/*.json ../shared/data/debates/more/variants/*.json`,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
		},
	}
	f := cmd.Flags()
	tf.add(f)
	f.BoolVar(&asJSON, "json", false, "print the table as JSON")
	return cmd
}
