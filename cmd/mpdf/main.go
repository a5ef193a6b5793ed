// Command mpdf trains and evaluates meta-policies for multi-agent LLM
// deliberation: simulate or import deliberations, validate and pack
// rollouts, train with SoftRankPO, inspect and export checkpoints.
//
// Run `mpdf help` for the commands. This package only wires flags to the
// library packages; it holds no algorithm of its own.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// commands lists the constructors of the subcommands; each command's file
// registers its own in an init function.
var commands []func() *cobra.Command

func register(c func() *cobra.Command) { commands = append(commands, c) }

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "mpdf",
		Short:         "Learn how a team of LLM agents should deliberate (SoftRankPO meta-policies)",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("mpdf {{.Version}}\n")
	for _, c := range commands {
		root.AddCommand(c())
	}
	return root
}

// exitError carries a specific exit status (e.g. 2 for rejected records).
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "mpdf:", err)
		var ee *exitError
		if errors.As(err, &ee) {
			os.Exit(ee.code)
		}
		os.Exit(1)
	}
}
