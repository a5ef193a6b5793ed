package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
)

func init() {
	register[importFlags]("import FILES... --out episodes.jsonl [--kind gsm8k|mmlu|arithmetic|math] [--layout auto|debate|agora]", cobra.MinimumNArgs(1))
}

// transcriptFlags say how to read transcripts whose names do not: the
// flags of import and data corpus.
type transcriptFlags struct {
	kind          answer.Kind
	model, layout string
}

func (tf *transcriptFlags) add(f *pflag.FlagSet) {
	addKindFlag(f, &tf.kind, "task of every file")
	shared(f, &tf.layout, "layout", "")
	shared(f, &tf.model, "model", "", "; here a label for the reports, when the names do not say")
}

// inputs expands the transcript arguments and parses the flags into
// transcript.Options.
func (tf *transcriptFlags) inputs(args []string) ([]string, transcript.Options, error) {
	opts := transcript.Options{Model: tf.model, Task: tf.kind}
	paths, err := transcript.Glob(args)
	if err != nil {
		return nil, opts, err
	}
	if opts.Layout, err = transcript.ParseLayout(tf.layout); err != nil {
		return nil, opts, fmt.Errorf("--layout: %w", err)
	}
	return paths, opts, nil
}

// importFlags are import's flags.
type importFlags struct {
	out                  string
	tf                   transcriptFlags
	text, asJSON, critic bool
	maxLine              int
}

func (fl *importFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	addMaxLineFlag(cmd, &fl.maxLine)
	shared(f, &fl.out, "out", "o", ": the episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	fl.tf.add(f)
	f.BoolVar(&fl.text, "text", false, "keep the question and response texts in the episodes")
	shared(f, &fl.critic, "critic", "", "; here of every turn where it checks something")
	shared(f, &fl.asJSON, "json", "")
	_ = cmd.MarkFlagRequired("out")
}

// run converts the transcripts args name into episodes (transcript.Import).
func (fl *importFlags) run(cmd *cobra.Command, args []string) error {
	paths, opts, err := fl.tf.inputs(args)
	if err != nil {
		return err
	}
	im, err := transcript.Import(fl.out, paths, transcript.ImportOptions{Options: opts,
		Episode: transcript.EpisodeOptions{Text: fl.text, Critic: fl.critic}, MaxLineBytes: fl.maxLine})
	if err != nil {
		return err
	}
	return show(cmd, fl.asJSON, im, im.WriteText)
}
