package cliflag

import (
	"errors"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// A Rename is a flag renamed so that each name means one thing across the
// commands (Table): the old spelling still works for one release, with a
// deprecation warning on stderr.
type Rename struct {
	Cmd, Old, Name string // Cmd as "mpdf study"
	// Example is a value both spellings take, for the test.
	Example string
}

// Renames are the renames of December 2026. Drop them a release after.
var Renames = []Rename{
	{"mpdf study", "group-by", "fold-by", "model"},      // --group-by is the SoftRankPO group
	{"mpdf study", "lambda", "lambdas", "0,0.2"},        // --lambda is one token cost
	{"mpdf data hindsight", "group-by", "by", "file"},   // rows, as mpdf study compare --by
	{"mpdf data hindsight", "lambda", "lambdas", "0,1"}, // a list, as in mpdf study
	{"mpdf collect", "tasks", "tasks-file", "t.jsonl"},  // --tasks is a count of tasks
	{"mpdf collect", "no-critic", "no-judge", "true"},   // the critic is the arithmetic check
	{"mpdf collect", "backend", "api", "vllm"},          // --backend is train's compute backend
}

// AddRenames defines the old spellings of Renames on the commands under
// root.
func AddRenames(root *cobra.Command) {
	for _, r := range Renames {
		c, rest, err := root.Find(strings.Fields(r.Cmd)[1:])
		if err != nil || len(rest) > 0 || c.CommandPath() != r.Cmd {
			panic("cliflag: rename: no command " + r.Cmd)
		}
		Renamed(c.Flags(), r.Old, r.Name)
		// pflag writes the deprecation warning to the flag set's output,
		// which cobra prints to the command's standard output when one is
		// set: send it to standard error, where warnings belong (a --json
		// on stdout stays JSON).
		c.Flags().SetOutput(stderrOf{c})
	}
}

// stderrOf writes to a command's standard error.
type stderrOf struct{ c *cobra.Command }

func (w stderrOf) Write(p []byte) (int, error) { return w.c.ErrOrStderr().Write(p) }

// Renamed keeps old working, for one release, as a deprecated spelling of
// the flag now called name: giving --old sets --name (so that
// Changed(name) and required-flag checks see it) and pflag prints "Flag
// --old has been deprecated, use --name (...)" on stderr. The old spelling
// is hidden from the help. Define name first.
func Renamed(fs *pflag.FlagSet, old, name string) {
	to := fs.Lookup(name)
	if to == nil {
		panic("cliflag: renamed: no flag --" + name)
	}
	fs.AddFlag(&pflag.Flag{
		Name: old, Usage: "old name of --" + name, Value: aliasValue{fs, to},
		DefValue: to.DefValue, NoOptDefVal: to.NoOptDefVal,
	})
	if err := fs.MarkDeprecated(old, "use --"+name+" (--"+old+" goes in the next release)"); err != nil {
		panic(err)
	}
}

// aliasValue sets the flag it stands for.
type aliasValue struct {
	fs *pflag.FlagSet
	to *pflag.Flag
}

func (a aliasValue) String() string { return a.to.Value.String() }
func (a aliasValue) Type() string   { return a.to.Value.Type() }
func (a aliasValue) Set(s string) error {
	err := a.fs.Set(a.to.Name, s)
	var iv *pflag.InvalidValueError
	if errors.As(err, &iv) { // pflag names the flag given, the old one
		return iv.Unwrap()
	}
	return err
}
