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

	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/internal/version"
)

// commands lists the constructors of mpdf's commands, called for each
// root (tests make many); each command's file adds its own in an init
// function, through register but for those with subcommands.
var commands []func() *cobra.Command

// register adds to mpdf the command of flags F (command).
func register[F any, R runnerOf[F]](use string, args cobra.PositionalArgs) {
	commands = append(commands, func() *cobra.Command { return command[F, R](use, args) })
}

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use:           "mpdf",
		Short:         "Learn how a team of LLM agents should deliberate (SoftRankPO meta-policies)",
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version.Describe(),
	}
	root.SetVersionTemplate("mpdf {{.Version}}\n")
	root.SetFlagErrorFunc(cliflag.NumberError) // inherited by every subcommand
	for _, c := range commands {
		root.AddCommand(c())
	}
	cliflag.AddRenames(root)
	addHelp(root) // help.go
	cliflag.SetDefaults(root)
	cliflag.WordErrors(root, inFlagWords) // flagwords.go
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

// shared binds a flag of the shared-flag table (cliflag.Bind); usageOf is
// that flag's one meaning, for a flag a command binds itself.
var shared, usageOf = cliflag.Bind, cliflag.Usage

// seedWas0 tells users of a command whose --seed defaulted to 0 that it
// now defaults to 1, as every --seed does (issue 21): the same command
// without --seed draws other episodes than before.
const seedWas0 = "; 1 by default as in every command, it was 0 before December 2026 (--seed 0 plays the old episodes)"

// A runner is a command's flags and the run that uses them: add defines
// the flags on the command, run runs it with them parsed.
type runner interface {
	add(cmd *cobra.Command)
	run(cmd *cobra.Command, args []string) error
}

// runnerOf is a runner that is a *F: a command's flag struct.
type runnerOf[F any] interface {
	*F
	runner
}

// command makes a command from its use line, the arguments it takes (nil:
// any) and a new F, its flags and their run; its help comes from
// help/NAME.txt (help.go).
func command[F any, R runnerOf[F]](use string, args cobra.PositionalArgs) *cobra.Command {
	r := R(new(F))
	cmd := &cobra.Command{Use: use, Args: args, RunE: r.run}
	r.add(cmd)
	return cmd
}
