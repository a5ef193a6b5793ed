package main

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagRe finds a long flag in prose: "--name", not "---" or an em-dash.
// "--sim-*" names every flag starting "sim-".
var flagRe = regexp.MustCompile(`(?:^|[^-\w])--([a-z][a-z0-9-]*[a-z0-9])(-\*)?`)

// allCommands lists root and every command under it, cobra's own
// (help, completion) left out.
func allCommands(c *cobra.Command) []*cobra.Command {
	out := []*cobra.Command{c}
	for _, s := range c.Commands() {
		if s.Name() == "help" || s.Name() == "completion" {
			continue
		}
		out = append(out, allCommands(s)...)
	}
	return out
}

// hasFlag reports whether c, or its root (--help, --version), has the flag;
// a name ending "-*" is a prefix of some.
func hasFlag(c *cobra.Command, name string) bool {
	if prefix, ok := strings.CutSuffix(name, "-*"); ok {
		found := false
		c.Flags().VisitAll(func(f *pflag.Flag) { found = found || strings.HasPrefix(f.Name, prefix+"-") })
		return found
	}
	if name == "help" || c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil {
		return true
	}
	return c.Root().Flags().Lookup(name) != nil
}

// flagsIn lists the flags a line names ("sim-*" for "--sim-*").
func flagsIn(line string) []string {
	var out []string
	for _, m := range flagRe.FindAllStringSubmatch(line, -1) {
		out = append(out, m[1]+m[2])
	}
	return out
}

// Every flag a command registers has a usage text and shows in its -h,
// and every --flag its help text (use line, long text, examples, flag
// usages) names is one it has: a renamed or removed flag cannot linger in the help. Another
// command's flag is named with that command: "mpdf eval --split".
func TestHelpMatchesFlags(t *testing.T) {
	root := newRoot()
	for _, c := range allCommands(root) {
		usage := c.UsageString()
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Hidden {
				return
			}
			if strings.TrimSpace(f.Usage) == "" {
				t.Errorf("%s --%s: no usage text", c.CommandPath(), f.Name)
			}
			if !strings.Contains(usage, "--"+f.Name) {
				t.Errorf("%s --%s: not in the help", c.CommandPath(), f.Name)
			}
		})
		texts := []string{c.Use, c.Long, c.Example}
		c.Flags().VisitAll(func(f *pflag.Flag) { texts = append(texts, f.Usage) })
		for _, text := range texts {
			for _, line := range strings.Split(text, "\n") {
				named := namedCommands(root, line)
			flags:
				for _, name := range flagsIn(line) {
					for _, o := range append(named, c) {
						if hasFlag(o, name) {
							continue flags
						}
					}
					t.Errorf("%s help: %q names --%s, which neither it nor a command the line names has", c.CommandPath(), line, name)
				}
			}
		}
	}
}

// mpdfRe finds a command named in prose: "mpdf eval", "mpdf data signal".
var mpdfRe = regexp.MustCompile(`mpdf ([a-z]+)(?: ([a-z]+))?`)

// namedCommands lists the commands a line names as "mpdf NAME".
func namedCommands(root *cobra.Command, line string) []*cobra.Command {
	var out []*cobra.Command
	for _, m := range mpdfRe.FindAllStringSubmatch(line, -1) {
		for _, path := range [][]string{{m[1], m[2]}, {m[1]}} {
			if c, rest, err := root.Find(path); err == nil && c != root && len(rest) == 0 {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// The README's Commands table lists every command, and the flags each row
// names are flags of the commands that row names.
func TestReadmeCommands(t *testing.T) {
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	start := strings.Index(s, "\n## Commands\n")
	if start < 0 {
		t.Fatal("README.md has no ## Commands section")
	}
	section := s[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	if end := strings.Index(section, "\n### "); end >= 0 {
		section = section[:end]
	}
	root := newRoot()
	root.InitDefaultVersionFlag() // cobra adds --version when it runs
	listed := map[string]bool{}
	cmdRe := regexp.MustCompile("`mpdf ([^`]*)`")
	for _, row := range strings.Split(section, "\n") {
		if !strings.HasPrefix(row, "| `mpdf") {
			continue
		}
		first := strings.SplitN(row[1:], " | ", 2)[0]
		var cmds []*cobra.Command
		for _, m := range cmdRe.FindAllStringSubmatch(first, -1) {
			words := strings.Fields(m[1])
			// "data validate\|pack\|stats" names three commands.
			if len(words) > 1 && strings.Contains(words[1], `\|`) {
				for _, w := range strings.Split(words[1], `\|`) {
					cmds = append(cmds, find(t, root, words[0], w))
				}
				continue
			}
			var path []string
			for _, w := range words {
				if strings.HasPrefix(w, "-") || strings.HasPrefix(w, "[") || strings.ToUpper(w) == w {
					break
				}
				path = append(path, w)
			}
			cmds = append(cmds, find(t, root, path...))
		}
		for _, c := range cmds {
			listed[c.CommandPath()] = true
		}
		for _, name := range flagsIn(row) {
			ok := false
			for _, c := range cmds {
				ok = ok || hasFlag(c, name)
			}
			if !ok {
				t.Errorf("README Commands row %q names --%s, which none of its commands has", first, name)
			}
		}
	}
	for _, c := range allCommands(root) {
		if c.Runnable() && !c.Hidden && !listed[c.CommandPath()] {
			t.Errorf("README Commands table does not list %s", c.CommandPath())
		}
	}
}

func find(t *testing.T, root *cobra.Command, path ...string) *cobra.Command {
	t.Helper()
	c, rest, err := root.Find(path)
	if err != nil || len(rest) > 0 || c == root && len(path) > 0 {
		t.Fatalf("README names mpdf %s, not a command (%v)", strings.Join(path, " "), err)
	}
	return c
}

// Every help file is a command's, and every command has its summary.
func TestHelpFiles(t *testing.T) {
	root := newRoot()
	names := map[string]bool{}
	for _, c := range allCommands(root) {
		names[strings.ReplaceAll(strings.TrimPrefix(c.CommandPath(), "mpdf "), " ", "-")+".txt"] = true
		if c.Short == "" {
			t.Errorf("%s: no summary (help/NAME.txt's first line)", c.CommandPath())
		}
	}
	files, err := helpFiles.ReadDir("help")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !names[f.Name()] {
			t.Errorf("help/%s: no such command", f.Name())
		}
	}
}

// train's help has its examples, and the policy help names every
// heuristic this build knows (issue 33).
func TestTrainExamplesAndEveryBaseline(t *testing.T) {
	root := newRoot()
	c, _, err := root.Find([]string{"train"})
	if err != nil || !strings.Contains(c.Example, "mpdf train --env 'replay:") {
		t.Errorf("train -h examples %q (%v)", c.Example, err)
	}
	for _, h := range metapolicy.HeuristicNames() {
		if !strings.Contains(policySpecHelp, h) {
			t.Errorf("the policy help does not name %s", h)
		}
	}
}
