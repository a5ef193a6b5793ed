package main

import (
	"bytes"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/internal/testenv"
)

// flagUse is one command's flag.
type flagUse struct {
	cmd  *cobra.Command
	flag *pflag.Flag
}

// flagUses lists every command's flags under root by name: their old,
// deprecated spellings left out, and --help and --version, which cobra
// owns.
func flagUses(root *cobra.Command) map[string][]flagUse {
	uses := map[string][]flagUse{}
	for _, c := range allCommands(root) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Deprecated != "" || f.Name == "help" || f.Name == "version" {
				return
			}
			uses[f.Name] = append(uses[f.Name], flagUse{c, f})
		})
	}
	return uses
}

// Every flag that two commands have is in sharedFlags, and each command's
// has the table's type and default (or the exception the table gives, with
// its reason) and says the table's words in its usage text; no entry of
// the table is stale.
func TestFlagsMeanOneThing(t *testing.T) {
	uses := flagUses(newRoot())
	table := map[string]sharedFlag{}
	for _, s := range sharedFlags {
		if _, dup := table[s.Name]; dup {
			t.Errorf("sharedFlags: --%s twice", s.Name)
		}
		table[s.Name] = s
		if strings.TrimSpace(s.Meaning) == "" {
			t.Errorf("sharedFlags: --%s has no meaning", s.Name)
		}
		if n := len(uses[s.Name]); n < 2 {
			t.Errorf("sharedFlags: --%s is in %d command(s): a flag of one command needs no entry", s.Name, n)
		}
		for path, ex := range s.Except {
			if ex.Why == "" {
				t.Errorf("sharedFlags: --%s in %s: an exception without its reason", s.Name, path)
			}
			if !slices.ContainsFunc(uses[s.Name], func(u flagUse) bool { return u.cmd.CommandPath() == path }) {
				t.Errorf("sharedFlags: --%s: exception for %s, which has no such flag", s.Name, path)
			}
		}
	}
	for name, us := range uses {
		if len(us) < 2 {
			continue
		}
		s, ok := table[name]
		if !ok {
			var paths []string
			for _, u := range us {
				paths = append(paths, u.cmd.CommandPath())
			}
			t.Errorf("--%s is a flag of %s but not in sharedFlags (flagtable.go): give its one meaning there, or another name", name, strings.Join(paths, ", "))
			continue
		}
		for _, u := range us {
			path := u.cmd.CommandPath()
			wantType, wantDef := s.Type, s.Default
			if ex, ok := s.Except[path]; ok {
				if ex.Type != "" {
					wantType = ex.Type
				}
				if ex.Default != "" {
					wantDef = ex.Default
				}
			}
			if got := u.flag.Value.Type(); got != wantType {
				t.Errorf("%s --%s: type %s, the table says %s", path, name, got, wantType)
			}
			if got := u.flag.DefValue; got != wantDef {
				t.Errorf("%s --%s: default %q, the table says %q", path, name, got, wantDef)
			}
			for _, w := range s.Says {
				if !strings.Contains(strings.ToLower(u.flag.Usage), strings.ToLower(w)) {
					t.Errorf("%s --%s: usage %q does not say %q, the flag's meaning (%s)", path, name, u.flag.Usage, w, s.Meaning)
				}
			}
		}
	}
}

// The old spelling of each renamed flag still works, giving the same
// value as the new one, with a deprecation warning on stderr that names
// the new; the new one gives no warning. Both are parsed as the command
// line is, by cobra, on the command that has them.
func TestFlagRenames(t *testing.T) {
	parse := func(r flagRename, name string) (*pflag.FlagSet, string) {
		root := newRoot()
		var out, errb bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errb)
		c, _, err := root.Find(strings.Fields(r.cmd)[1:])
		if err != nil {
			t.Fatal(err)
		}
		if err := c.ParseFlags([]string{"--" + name + "=" + r.example}); err != nil {
			t.Fatalf("%s --%s=%s: %v", r.cmd, name, r.example, err)
		}
		if out.Len() > 0 {
			t.Errorf("%s --%s: %q on stdout", r.cmd, name, out.String())
		}
		return c.Flags(), errb.String()
	}
	for _, r := range flagRenames {
		newFS, newErr := parse(r, r.name)
		oldFS, oldErr := parse(r, r.old)
		if newErr != "" {
			t.Errorf("%s --%s: warns %q", r.cmd, r.name, newErr)
		}
		if want := "--" + r.old + " has been deprecated, use --" + r.name; !strings.Contains(oldErr, want) {
			t.Errorf("%s --%s: stderr %q, want it to say %q", r.cmd, r.old, oldErr, want)
		}
		if !oldFS.Changed(r.name) {
			t.Errorf("%s --%s: --%s not marked given", r.cmd, r.old, r.name)
		}
		got, want := oldFS.Lookup(r.name).Value.String(), newFS.Lookup(r.name).Value.String()
		if want == newFS.Lookup(r.name).DefValue {
			t.Errorf("%s --%s: example %q is the default: the test cannot tell it was set", r.cmd, r.name, r.example)
		}
		if got != want {
			t.Errorf("%s: --%s=%s sets --%s to %q, --%s=%s to %q", r.cmd, r.old, r.example, r.name, got, r.name, r.example, want)
		}
		if f := oldFS.Lookup(r.old); !f.Hidden {
			t.Errorf("%s --%s: shown in the help", r.cmd, r.old)
		}
	}
}

// In a real process the old spellings print their warning on stderr and
// give the same output as the new ones.
func TestFlagRenamesBinary(t *testing.T) {
	bin := mpdfBinary(t)
	file := testenv.Debates(t, "slm-debate/gsm/gsm_*agents3*.json")[0]
	run := func(args ...string) (string, string) {
		cmd := exec.Command(bin, append([]string{"data", "hindsight", file, "-q", "--json"}, args...)...)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		if err := cmd.Run(); err != nil {
			t.Fatalf("mpdf data hindsight %v: %v\n%s", args, err, errb.String())
		}
		return out.String(), errb.String()
	}
	newOut, newErr := run("--lambdas", "0,1", "--by", "file")
	oldOut, oldErr := run("--lambda", "0,1", "--group-by", "file")
	if newOut != oldOut {
		t.Errorf("old spellings print\n%s\nnew ones\n%s", oldOut, newOut)
	}
	if !strings.Contains(newOut, `"lambda": 1`) || !strings.Contains(newOut, filepath.Base(file)) {
		t.Errorf("--lambdas 0,1 --by file: no λ=1 row by file in\n%s", newOut)
	}
	if newErr != "" {
		t.Errorf("new spellings warn: %q", newErr)
	}
	for _, w := range []string{"--lambda has been deprecated, use --lambdas", "--group-by has been deprecated, use --by"} {
		if !strings.Contains(oldErr, w) {
			t.Errorf("old spellings: stderr %q does not say %q", oldErr, w)
		}
	}
}
