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

	"github.com/mpdf/mpdf/internal/cliflag"
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

// Every flag that two commands have is in cliflag.Table, and each command's
// has the table's type and default (or the exception the table gives, with
// its reason) and says the table's words in its usage text; no entry of
// the table is stale.
func TestFlagsMeanOneThing(t *testing.T) {
	uses := flagUses(newRoot())
	table := map[string]cliflag.Shared{}
	for _, s := range cliflag.Table {
		if _, dup := table[s.Name]; dup {
			t.Errorf("cliflag.Table: --%s twice", s.Name)
		}
		table[s.Name] = s
		if strings.TrimSpace(s.Meaning) == "" {
			t.Errorf("cliflag.Table: --%s has no meaning", s.Name)
		}
		if n := len(uses[s.Name]); n < 2 {
			t.Errorf("cliflag.Table: --%s is in %d command(s): a flag of one command needs no entry", s.Name, n)
		}
		for path, ex := range s.Except {
			if ex.Why == "" {
				t.Errorf("cliflag.Table: --%s in %s: an exception without its reason", s.Name, path)
			}
			if !slices.ContainsFunc(uses[s.Name], func(u flagUse) bool { return u.cmd.CommandPath() == path }) {
				t.Errorf("cliflag.Table: --%s: exception for %s, which has no such flag", s.Name, path)
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
			t.Errorf("--%s is a flag of %s but not in cliflag.Table (internal/cliflag): give its one meaning there, or another name", name, strings.Join(paths, ", "))
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
				} else if ex.NoDefault {
					wantDef = ""
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
	parse := func(r cliflag.Rename, name string) (*pflag.FlagSet, string) {
		root := newRoot()
		var out, errb bytes.Buffer
		root.SetOut(&out)
		root.SetErr(&errb)
		c, _, err := root.Find(strings.Fields(r.Cmd)[1:])
		if err != nil {
			t.Fatal(err)
		}
		if err := c.ParseFlags([]string{"--" + name + "=" + r.Example}); err != nil {
			t.Fatalf("%s --%s=%s: %v", r.Cmd, name, r.Example, err)
		}
		if out.Len() > 0 {
			t.Errorf("%s --%s: %q on stdout", r.Cmd, name, out.String())
		}
		return c.Flags(), errb.String()
	}
	for _, r := range cliflag.Renames {
		newFS, newErr := parse(r, r.Name)
		oldFS, oldErr := parse(r, r.Old)
		if newErr != "" {
			t.Errorf("%s --%s: warns %q", r.Cmd, r.Name, newErr)
		}
		if want := "--" + r.Old + " has been deprecated, use --" + r.Name; !strings.Contains(oldErr, want) {
			t.Errorf("%s --%s: stderr %q, want it to say %q", r.Cmd, r.Old, oldErr, want)
		}
		if !oldFS.Changed(r.Name) {
			t.Errorf("%s --%s: --%s not marked given", r.Cmd, r.Old, r.Name)
		}
		got, want := oldFS.Lookup(r.Name).Value.String(), newFS.Lookup(r.Name).Value.String()
		if want == newFS.Lookup(r.Name).DefValue {
			t.Errorf("%s --%s: example %q is the default: the test cannot tell it was set", r.Cmd, r.Name, r.Example)
		}
		if got != want {
			t.Errorf("%s: --%s=%s sets --%s to %q, --%s=%s to %q", r.Cmd, r.Old, r.Example, r.Name, got, r.Name, r.Example, want)
		}
		if f := oldFS.Lookup(r.Old); !f.Hidden {
			t.Errorf("%s --%s: shown in the help", r.Cmd, r.Old)
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
