package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/metapolicy"
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
	return command("view [EPISODES... | RUN_DIR] [--env sim|"+replay.Syntax+" --policy SPEC,...] --out FILE.html", nil, &viewFlags{})
}

// add defines the flags on cmd: eval's flags of what is played, and the
// page's.
func (fl *viewFlags) add(cmd *cobra.Command) {
	fl.addPlay(cmd)
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the HTML file (required, but for a run directory: RUN_DIR/index.html)")
	f.Var(cliflag.Count(&fl.maxBytes, view.DefaultMaxBytes), "max-bytes", "size budget of the page in bytes; a larger page is refused")
}

// run reads or plays the episodes and writes the page.
func (fl *viewFlags) run(cmd *cobra.Command, args []string) error {
	c := fl.cfg
	played := cmd.Flags().Changed("env") || len(c.Policies) > 0
	if len(args) == 1 && view.IsRunDir(args[0]) && !played {
		path, err := view.WriteRunPage(args[0], fl.out)
		if err == nil && !fl.quiet {
			fmt.Fprintln(cmd.ErrOrStderr(), "wrote", path)
		}
		return err
	}
	if fl.out == "" {
		return fmt.Errorf("--out is required: the HTML file to write")
	}
	o := view.Options{MaxBytes: fl.maxBytes}
	var runs []view.Run
	switch {
	case len(args) > 0 && played:
		return fmt.Errorf("give episode files or --env/--policy to play, not both")
	case len(args) > 0:
		eps, err := view.Read(args, c.Tasks)
		if err != nil {
			return err
		}
		runs, o.Title = view.Group(eps), fmt.Sprintf("%d episodes", len(eps))
	case !played:
		return fmt.Errorf("nothing to show: give episode files, or --env and --policy to play")
	default:
		ev, err := fl.open(cmd)
		if err != nil {
			return err
		}
		err = fl.each(ev, "view", func(p metapolicy.Policy, opts env.RunOptions) error {
			rs, err := view.Play(ev.Env, []metapolicy.Policy{p}, opts)
			runs = append(runs, rs...)
			return err
		})
		if err != nil {
			return err
		}
		o.Title = fmt.Sprintf("%s: %d tasks × %d episodes, %d rounds, seed %d", replay.Title(ev.Env), len(ev.List), ev.Episodes, ev.Rounds, ev.Seed)
		o.Confidence = ev.ConfidenceSource()
	}
	return view.WriteFile(fl.out, runs, o)
}
