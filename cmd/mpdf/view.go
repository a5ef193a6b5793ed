package main

import (
	"bytes"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/view"
)

func init() { register(newViewCmd) }

// viewFlags are view's flags: eval's that choose what is played, and the
// page's.
type viewFlags struct {
	evalFlags
	out      string
	maxBytes int
}

func newViewCmd() *cobra.Command {
	var fl viewFlags
	cmd := &cobra.Command{
		Use:  "view [EPISODES...] [--env sim|" + replaySyntax + " --policy SPEC,...] --out FILE.html",
		RunE: func(cmd *cobra.Command, args []string) error { return runView(cmd, &fl, args) },
	}
	fl.add(cmd)
	return cmd
}

// add defines the flags on cmd: eval's flags of what is played, and the
// page's.
func (fl *viewFlags) add(cmd *cobra.Command) {
	fl.addPlay(cmd)
	f := cmd.Flags()
	f.StringVarP(&fl.out, "out", "o", "", "the HTML file to write (required)")
	f.IntVar(&fl.maxBytes, "max-bytes", view.DefaultMaxBytes, "size budget of the page in bytes; a larger page is refused")
}

// runView reads or plays the episodes and writes the page.
func runView(cmd *cobra.Command, fl *viewFlags, args []string) error {
	if fl.out == "" {
		return fmt.Errorf("--out is required: the HTML file to write")
	}
	if fl.tasks < 0 || fl.episodes < 1 || fl.rounds < 0 || fl.workers < 0 || fl.maxBytes < 1 {
		return fmt.Errorf("--tasks %d, --episodes %d, --rounds %d, --workers %d, --max-bytes %d: want tasks ≥ 0, episodes ≥ 1, rounds ≥ 0, workers ≥ 0, max-bytes ≥ 1",
			fl.tasks, fl.episodes, fl.rounds, fl.workers, fl.maxBytes)
	}
	played := cmd.Flags().Changed("env") || len(fl.policies) > 0
	var runs []view.Run
	var title, confidence string
	switch {
	case len(args) > 0 && played:
		return fmt.Errorf("give episode files or --env/--policy to play, not both")
	case len(args) > 0:
		eps, err := view.Read(args, fl.tasks)
		if err != nil {
			return err
		}
		runs, title = view.Group(eps), fmt.Sprintf("%d episodes", len(eps))
	case !played:
		return fmt.Errorf("nothing to show: give episode files, or --env and --policy to play")
	default:
		e, pols, list, err := fl.open(cmd)
		if err != nil {
			return err
		}
		if runs, err = fl.playAll(e, pols, list); err != nil {
			return err
		}
		title = fmt.Sprintf("%s: %d tasks × %d episodes, %d rounds, seed %d", replay.Title(e), len(list), fl.episodes, fl.rounds, fl.seed)
		if r, ok := e.(*replay.Env); ok {
			confidence = "none (the transcripts record none; critic=on in --env reads one from each text)"
			if r.Critic() {
				confidence = "the text critic's read of each answer"
			}
		}
	}
	// Rendered first, so that a page over budget is refused before the
	// file is touched, with the budget's own message.
	var page bytes.Buffer
	if err := view.Write(&page, runs, view.Options{Title: title, MaxBytes: fl.maxBytes, Confidence: confidence}); err != nil {
		return err
	}
	return outfile.WriteFile(fl.out, func(w io.Writer) error {
		_, err := w.Write(page.Bytes())
		return err
	})
}

// playAll plays each policy as evalFlags.play does, keeping the episodes.
func (fl *viewFlags) playAll(e env.Env, pols []resolvedPolicy, list []int) ([]view.Run, error) {
	var runs []view.Run
	err := fl.each(pols, list, "view", func(p metapolicy.Policy, opts env.RunOptions) error {
		rs, err := view.Play(e, []metapolicy.Policy{p}, opts)
		runs = append(runs, rs...)
		return err
	})
	return runs, err
}
