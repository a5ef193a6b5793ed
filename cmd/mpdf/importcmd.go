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
	cmd := &cobra.Command{
		Use:   "import FILES... --out episodes.jsonl [--kind gsm8k|mmlu|arithmetic|math] [--layout auto|debate|agora]",
		Short: "Convert debate transcripts into episodes",
		Long: `Import reads debate transcripts in the layout of Du et al.'s LLM-Debate
(a JSON object mapping each question to [agent_contexts, gold_answer, ...];
contexts of {role, content} messages or plain strings; DyLAN's logs) or of
LLM-Agora (a JSON array of {question, agent_response, answer}), detected or
chosen with --layout, plain, .gz or .zst, and
writes one episode per usable question: round 0 is every agent's recorded
independent answer, each later round its recorded answer with action
refine (the debate protocol). Answers are read by the task's rules (gsm:
a number, mmlu: a letter, arithmetic: an integer, math: a LaTeX answer),
profiles from the texts; token counts are
estimates and confidences are missing, as the transcripts record none.

The task and model come from the file name (gsm_3_2.json,
gsm_MODEL_..._agents3_rounds3.json) unless --kind and --model say. It then
prints, per file, the questions read, unreadable gold answers, skipped
questions, and the unreadable share of the answers per round.
The episodes go to a temporary file beside --out, renamed over it when
the import succeeds: a failed import leaves --out as it was. --out must
be a new or a regular file (not a link or a device).`,
		Example: `  mpdf import debates/gsm_*.json --out runs/gsm.jsonl.zst
  mpdf import run1.json --kind mmlu --model Qwen3-8B --out runs/mmlu.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
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
		},
	}
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
