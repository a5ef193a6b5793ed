package cliflag

import (
	"errors"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"
)

// A Runner is a command's flags and the run that uses them: Add defines
// the flags on the command, Run runs it with them parsed.
type Runner interface {
	Add(cmd *cobra.Command)
	Run(cmd *cobra.Command, args []string) error
}

// RunnerOf is a Runner that is a *F: a command's flag struct.
type RunnerOf[F any] interface {
	*F
	Runner
}

// Command makes a command from its use line, the arguments it takes (nil:
// any) and a new F, its flags and their run; its help comes from AddHelp.
func Command[F any, R RunnerOf[F]](use string, args cobra.PositionalArgs) *cobra.Command {
	r := R(new(F))
	cmd := &cobra.Command{Use: use, Args: args, RunE: r.Run}
	r.Add(cmd)
	return cmd
}

// An ExitError ends the program with its exit status Code (2 for
// rejected records, say) instead of 1.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// ExitCode is the exit status of a command that failed with err: an
// ExitError's code, else 1.
func ExitCode(err error) int {
	if ee, ok := errors.AsType[*ExitError](err); ok {
		return ee.Code
	}
	return 1
}

// AddHelp sets the summary, long text and examples of c and of the
// commands under it from their help files in fsys: help/NAME.txt (NAME the
// command's path after its root's name, words joined by "-") is the
// one-line summary, then the long text, then the examples if any, parted
// by lines "---"; vars fills in what the build knows where the text says
// {key}, so that the text cannot fall behind the code.
func AddHelp(c *cobra.Command, fsys fs.FS, vars *strings.Replacer) {
	name := strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), c.Root().Name()+" "), " ", "-")
	if b, err := fs.ReadFile(fsys, "help/"+name+".txt"); err == nil {
		parts := strings.SplitN(vars.Replace(string(b)), "\n---\n", 3)
		c.Short, c.Long = parts[0], strings.TrimSuffix(parts[1], "\n")
		if len(parts) == 3 {
			c.Example = strings.TrimSuffix(parts[2], "\n")
		}
	}
	for _, s := range c.Commands() {
		AddHelp(s, fsys, vars)
	}
}

// Finish readies root once its commands are added: numbers' errors in
// words (NumberError, which every command inherits), the help from fsys
// (AddHelp), the shared flags' defaults (SetDefaults) and every command's
// error through word (WordErrors).
func Finish(root *cobra.Command, fsys fs.FS, vars *strings.Replacer, word func(*cobra.Command, error) error) {
	root.SetFlagErrorFunc(NumberError)
	AddHelp(root, fsys, vars)
	SetDefaults(root)
	WordErrors(root, word)
}
