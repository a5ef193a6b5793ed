package main

import (
	"strings"

	"github.com/spf13/cobra"
)

// A flagRename is a flag renamed so that each name means one thing across
// the commands (issue 21, the table in flagtable.go): the old spelling
// still works for one release, with a deprecation warning on stderr.
type flagRename struct {
	cmd, old, name string // cmd as "mpdf study"
	// example is a value both spellings take, for the test.
	example string
}

// flagRenames are the renames of December 2026. Drop them a release after.
var flagRenames = []flagRename{
	{"mpdf study", "group-by", "fold-by", "model"},      // --group-by is the SoftRankPO group
	{"mpdf study", "lambda", "lambdas", "0,0.2"},        // --lambda is one token cost
	{"mpdf data hindsight", "group-by", "by", "file"},   // rows, as mpdf study compare --by
	{"mpdf data hindsight", "lambda", "lambdas", "0,1"}, // a list, as in mpdf study
	{"mpdf collect", "tasks", "tasks-file", "t.jsonl"},  // --tasks is a count of tasks
	{"mpdf collect", "no-critic", "no-judge", "true"},   // the critic is the arithmetic check
	{"mpdf collect", "backend", "api", "vllm"},          // --backend is train's compute backend
}

// addRenamedFlags defines the old spellings of flagRenames on the
// commands under root.
func addRenamedFlags(root *cobra.Command) {
	for _, r := range flagRenames {
		c, rest, err := root.Find(strings.Fields(r.cmd)[1:])
		if err != nil || len(rest) > 0 || c.CommandPath() != r.cmd {
			panic("flag rename: no command " + r.cmd)
		}
		renamed(c.Flags(), r.old, r.name)
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
