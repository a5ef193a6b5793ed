package main

import (
	"strings"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/internal/cliflag"
)

func init() {
	register[importFlags]("import FILES... --out episodes.jsonl [--kind gsm8k|mmlu|arithmetic|math] [--layout "+strings.Join(transcript.LayoutNames(), "|")+"]", cobra.MinimumNArgs(1))
}

// importFlags are import's flags.
type importFlags struct {
	out                  string
	tf                   transcriptFlags
	text, asJSON, critic bool
	maxLine              int
}

func (fl *importFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	cliflag.MaxLine(cmd, &fl.maxLine)
	shared(f, &fl.out, "out", "o", ": the episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	fl.tf.Add(f)
	f.BoolVar(&fl.text, "text", false, "keep the question and response texts in the episodes")
	shared(f, &fl.critic, "critic", "", "; here of every turn where it checks something")
	shared(f, &fl.asJSON, "json", "")
	_ = cmd.MarkFlagRequired("out")
}

// Run converts the transcripts args name into episodes (transcript.Import).
func (fl *importFlags) Run(cmd *cobra.Command, args []string) error {
	paths, opts, err := fl.tf.Inputs(args)
	if err != nil {
		return err
	}
	im, err := transcript.Import(fl.out, paths, transcript.ImportOptions{Options: opts,
		Episode: transcript.EpisodeOptions{Text: fl.text, Critic: fl.critic}, MaxLineBytes: fl.maxLine})
	if err != nil {
		return err
	}
	return cliflag.Show(cmd, fl.asJSON, im, im.WriteText)
}
