package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/internal/progress"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/view"
)

func init() {
	register[viewFlags]("view [EPISODES... | RUN_DIR] [--env sim|"+replay.Syntax+" --policy SPEC,...] --out FILE.html", nil)
}

// viewFlags are view's flags: eval's that choose what is played, and the
// page's.
type viewFlags struct {
	evalFlags
	out      string
	maxBytes int
}

// Add defines the flags on cmd: eval's flags of what is played, and the
// page's.
func (fl *viewFlags) Add(cmd *cobra.Command) {
	fl.addPlay(cmd)
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the HTML file (required, but for a run directory: RUN_DIR/index.html)")
	f.Var(cliflag.Count(&fl.maxBytes, view.DefaultMaxBytes), "max-bytes", "size budget of the page in bytes; a larger page is refused")
}

// Run reads or plays the episodes and writes the page.
func (fl *viewFlags) Run(cmd *cobra.Command, args []string) error {
	played := cmd.Flags().Changed("env") || len(fl.cfg.Policies) > 0
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
	if err := outfile.NotAnInput(fl.out, args...); err != nil {
		return err
	}
	runs, o, err := fl.runs(cmd, args, played)
	if err != nil {
		return err
	}
	o.MaxBytes = fl.maxBytes
	if err := view.WriteFile(fl.out, runs, o); err != nil {
		return err
	}
	if !fl.quiet {
		fmt.Fprintln(cmd.ErrOrStderr(), "wrote", fl.out)
	}
	return nil
}

// runs are the page's deliberations: read from the episode files args
// name, or played as eval plays them (view.PlayEvaluation).
func (fl *viewFlags) runs(cmd *cobra.Command, args []string, played bool) ([]view.Run, view.Options, error) {
	switch {
	case len(args) > 0 && played:
		return nil, view.Options{}, fmt.Errorf("give episode files or --env/--policy to play, not both")
	case len(args) > 0:
		eps, err := view.Read(args, fl.cfg.Tasks)
		if err != nil {
			return nil, view.Options{}, err
		}
		return view.Group(eps), view.Options{Title: fmt.Sprintf("%d episodes", len(eps))}, nil
	case !played:
		return nil, view.Options{}, fmt.Errorf("nothing to show: give episode files, or --env and --policy to play")
	}
	ev, err := fl.open(cmd)
	if err != nil {
		return nil, view.Options{}, err
	}
	bar, done := progress.Lazy("view", fl.quiet)
	runs, o, err := view.PlayEvaluation(ev, bar)
	if err == nil {
		done()
	}
	return runs, o, err
}
