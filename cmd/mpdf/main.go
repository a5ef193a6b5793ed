// Command mpdf trains and evaluates meta-policies for multi-agent LLM
// deliberation: simulate or import deliberations, validate and pack
// rollouts, train with SoftRankPO, inspect and export checkpoints.
//
// Run `mpdf help` for the commands. This package only wires flags to the
// library packages; it holds no algorithm of its own.
package main

import (
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

// register adds to mpdf the command of flags F (cliflag.Command).
func register[F any, R cliflag.RunnerOf[F]](use string, args cobra.PositionalArgs) {
	commands = append(commands, func() *cobra.Command { return cliflag.Command[F, R](use, args) })
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
	for _, c := range commands {
		root.AddCommand(c())
	}
	cliflag.Finish(root, helpFiles, helpVars, inFlagWords) // help.go, flagwords.go
	return root
}

func main() {
	if err := newRoot().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "mpdf:", err)
		os.Exit(cliflag.ExitCode(err))
	}
}

// shared binds a flag of the shared-flag table (cliflag.Bind); usageOf is
// that flag's one meaning, for a flag a command binds itself.
var shared, usageOf = cliflag.Bind, cliflag.Usage

// seedWas0 tells users of a command whose --seed defaulted to 0 that it
// now defaults to 1, as every --seed does (issue 21): the same command
// without --seed draws other episodes than before.
const seedWas0 = "; 1 by default as in every command, it was 0 before December 2026 (--seed 0 plays the old episodes)"
