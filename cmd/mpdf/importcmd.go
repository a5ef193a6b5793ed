package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
)

func init() { register(newImportCmd) }

// importFile is one transcript's report in import's JSON output.
type importFile struct {
	File            string   `json:"file"`
	Task            string   `json:"task"`
	Model           string   `json:"model,omitempty"`
	Agents          int      `json:"agents"`
	Rounds          int      `json:"rounds"`
	Questions       int      `json:"questions"`
	GoldMissing     int      `json:"gold_missing"`
	Skipped         []string `json:"skipped"`
	Answers         int      `json:"answers"`
	Unreadable      int      `json:"unreadable"`
	UnreadableShare float64  `json:"unreadable_share"`
	Warnings        []string `json:"warnings"`
}

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
	paths, err := expandPaths(args)
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
		Example: `  mpdf import debates/gsm_*.json --out gsm.jsonl.zst
  mpdf import run1.json --kind mmlu --model Qwen3-8B --out mmlu.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			paths, opts, err := tf.inputs(args)
			if err != nil {
				return err
			}
			// Episode ids are BASE#INDEX: two inputs with one base name
			// would give the same ids.
			bases := map[string]string{}
			for _, p := range paths {
				b := filepath.Base(p)
				if q, ok := bases[b]; ok {
					return fmt.Errorf("%s and %s share the base name %s: their episode ids would collide", q, p, b)
				}
				bases[b] = p
			}
			if err := checkMaxLine(maxLine); err != nil {
				return err
			}
			w, err := data.Create(out)
			if err != nil {
				return err
			}
			w.SetMaxLineBytes(maxLine)
			reps, noGold, err := importAll(w, paths, opts, transcript.EpisodeOptions{Text: text, Critic: critic})
			if err != nil {
				w.Abort() // out is left as it was
				return err
			}
			if err := w.Close(); err != nil {
				return err
			}
			o := cmd.OutOrStdout()
			if asJSON {
				files := make([]importFile, len(reps))
				for i, r := range reps {
					tot := r.Total()
					files[i] = importFile{File: r.File, Task: string(r.Task), Model: r.Model, Agents: r.Agents,
						Rounds: r.Rounds, Questions: r.Questions, GoldMissing: r.GoldMissing,
						Skipped: nonNil(r.Skipped), Answers: tot.Answers, Unreadable: tot.Unreadable,
						UnreadableShare: tot.Share(), Warnings: nonNil(r.Warnings)}
				}
				return printJSON(o, struct {
					Out      string       `json:"out"`
					Episodes int64        `json:"episodes"`
					NoGold   int          `json:"episodes_without_gold"`
					Files    []importFile `json:"files"`
				}{out, w.Records(), noGold, files})
			}
			if err := transcript.WriteReports(o, reps); err != nil {
				return err
			}
			_, err = fmt.Fprintf(o, "wrote %d episodes from %d files to %s (%d without a readable gold answer: no reward)\n",
				w.Records(), len(paths), out, noGold)
			return err
		},
	}
	f := cmd.Flags()
	addMaxLineFlag(cmd, &maxLine)
	f.StringVarP(&out, "out", "o", "", "output episodes file: .jsonl, .jsonl.gz or .jsonl.zst (required)")
	tf.add(f)
	f.BoolVar(&text, "text", false, "keep the question and response texts in the episodes")
	f.BoolVar(&critic, "critic", false, "set each turn's confidence to the critic's read from its text (answer.Critic), where it checks something")
	f.BoolVar(&asJSON, "json", false, "print the per-file report as JSON")
	_ = cmd.MarkFlagRequired("out")
	return cmd
}

// importAll streams every question of every file into w as an episode and
// returns the files' reports and the number of episodes without gold.
func importAll(w *data.Writer, paths []string, opts transcript.Options, eopts transcript.EpisodeOptions) ([]transcript.Report, int, error) {
	var reps []transcript.Report
	noGold := 0
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, 0, err
		}
		rep, err := transcript.Each(f, p, opts, func(q *transcript.Question) error {
			ep := transcript.ToEpisode(q, eopts)
			if ep.Gold == "" {
				noGold++
			}
			if err := w.WriteEpisode(&ep); err != nil {
				return fmt.Errorf("%s: question %d: %w", p, q.Index, err)
			}
			return nil
		})
		f.Close()
		if err != nil {
			return nil, 0, err
		}
		reps = append(reps, *rep)
	}
	return reps, noGold, nil
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
