package main

import (
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/data/transcript"
)

func init() { register(newImportCmd) }

// transcriptFlags say how to read transcripts whose names do not: the
// flags of import and data corpus.
type transcriptFlags struct {
	kind          transcript.Task
	model, layout string
}

func (tf *transcriptFlags) add(f *pflag.FlagSet) {
	addKindFlag(f, &tf.kind, "task of every file")
	f.StringVar(&tf.layout, "layout", "auto", "file layout: auto (detect), debate (LLM-Debate and variants, DyLAN) or agora (LLM-Agora)")
	f.StringVar(&tf.model, "model", "", "model label for the reports, when the names do not say")
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

func newImportCmd() *cobra.Command {
	var (
		out          string
		tf           transcriptFlags
		text, asJSON bool
		maxLine      int
		critic       bool
	)
	cmd := command("import FILES... --out episodes.jsonl [--kind gsm8k|mmlu|arithmetic|math] [--layout auto|debate|agora]", cobra.MinimumNArgs(1), func(cmd *cobra.Command, args []string) error {
		paths, opts, err := tf.inputs(args)
		if err != nil {
			return err
		}
		if err := checkMaxLine(maxLine); err != nil {
			return err
		}
		im, err := transcript.Import(out, paths, transcript.ImportOptions{Options: opts,
			Episode: transcript.EpisodeOptions{Text: text, Critic: critic}, MaxLineBytes: maxLine})
		if err != nil {
			return err
		}
		return output(cmd, asJSON, im)
	})
	f := cmd.Flags()
	addMaxLineFlag(cmd, &maxLine)
	f.StringVarP(&out, "out", "o", "", "output episodes file: .jsonl, .jsonl.gz or .jsonl.zst (required)")
	tf.add(f)
	f.BoolVar(&text, "text", false, "keep the question and response texts in the episodes")
	f.BoolVar(&critic, "critic", false, "set each turn's confidence to the critic's read from its text, where it checks something")
	f.BoolVar(&asJSON, "json", false, "print the per-file report as JSON")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}
