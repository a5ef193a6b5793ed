package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/view"
)

func init() {
	register[runsFlags]("runs [DIR]", cobra.MaximumNArgs(1))
}

// runsFlags are runs' flags.
type runsFlags struct {
	out   string
	quiet bool
}

// Add defines the flags on cmd.
func (fl *runsFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	shared(f, &fl.out, "out", "o", ": the index's HTML file (default: DIR/index.html)")
	shared(f, &fl.quiet, "quiet", "q")
}

// Run writes the index of the runs under DIR (view.WriteRunsIndex) and
// names the runs it skipped.
func (fl *runsFlags) Run(cmd *cobra.Command, args []string) error {
	dir := view.DefaultRunsDir
	if len(args) == 1 {
		dir = args[0]
	}
	idx, err := view.WriteRunsIndex(dir, fl.out)
	if err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	for _, s := range idx.Skipped {
		fmt.Fprintf(stderr, "skipped %s: %s\n", s.Dir, s.Reason)
	}
	if idx.More > 0 {
		fmt.Fprintf(stderr, "%d more runs not shown: the index shows the first %d by path\n", idx.More, view.MaxRuns)
	}
	if !fl.quiet {
		fmt.Fprintf(stderr, "wrote %s: %d runs, %d skipped\n", idx.Path, len(idx.Runs), len(idx.Skipped))
	}
	return nil
}
