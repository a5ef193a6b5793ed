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
	"reflect"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/version"
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
		Version:       version.Describe(),
	}
	root.SetVersionTemplate("mpdf {{.Version}}\n")
	root.SetFlagErrorFunc(flagError) // inherited by every subcommand
	for _, c := range commands {
		root.AddCommand(c())
	}
	addRenamedFlags(root)   // flagrenames.go
	addHelp(root)           // help.go
	setSharedDefaults(root) // flagbind.go
	addFlagWords(root)      // flagwords.go
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

// flagError words a numeric flag's bad value for a user ("--seed "-5": -5
// is negative: want a non-negative integer") instead of the parser's
// message, which names Go functions (strconv.ParseUint).
func flagError(_ *cobra.Command, err error) error {
	var iv *pflag.InvalidValueError
	if !errors.As(err, &iv) {
		return err
	}
	kind, ok := flagKinds[iv.GetFlag().Value.Type()]
	if !ok {
		return err
	}
	msg := data.NumberMismatch(iv.GetValue(), kind)
	if msg == "" {
		return err
	}
	return fmt.Errorf("--%s %q: %s", iv.GetFlag().Name, iv.GetValue(), msg)
}

// flagKinds maps pflag's numeric value types to the kinds they hold.
var flagKinds = map[string]reflect.Kind{
	"int": reflect.Int, "int8": reflect.Int8, "int16": reflect.Int16, "int32": reflect.Int32, "int64": reflect.Int64,
	"uint": reflect.Uint, "uint8": reflect.Uint8, "uint16": reflect.Uint16, "uint32": reflect.Uint32, "uint64": reflect.Uint64,
	"float32": reflect.Float32, "float64": reflect.Float64,
}

// command makes a command from its use line, the arguments it takes (nil:
// any) and what it runs; its help comes from help/NAME.txt (help.go).
func command(use string, args cobra.PositionalArgs, run func(cmd *cobra.Command, args []string) error) *cobra.Command {
	return &cobra.Command{Use: use, Args: args, RunE: run}
}
