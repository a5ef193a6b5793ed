package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/internal/cliflag"
)

// flagUse is one command's flag.
type flagUse struct {
	cmd  *cobra.Command
	flag *pflag.Flag
}

// flagUses lists every command's flags under root by name, --help and
// --version left out, which cobra owns.
func flagUses(root *cobra.Command) map[string][]flagUse {
	uses := map[string][]flagUse{}
	for _, c := range allCommands(root) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if f.Name == "help" || f.Name == "version" {
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

// The spellings the renames of December 2026 replaced are gone, not kept
// for a release (no release had them): each is an unknown flag, as cobra
// says, on the command that had it.
func TestOldSpellingsAreUnknown(t *testing.T) {
	for _, r := range []struct{ cmd, old, name string }{
		{"mpdf study", "group-by", "fold-by"},
		{"mpdf study", "lambda", "lambdas"},
		{"mpdf data hindsight", "group-by", "by"},
		{"mpdf data hindsight", "lambda", "lambdas"},
		{"mpdf collect", "tasks", "tasks-file"},
		{"mpdf collect", "no-critic", "no-judge"},
		{"mpdf collect", "backend", "api"},
	} {
		c, _, err := newRoot().Find(strings.Fields(r.cmd)[1:])
		if err != nil || c.CommandPath() != r.cmd {
			t.Fatalf("%s: %v", r.cmd, err)
		}
		if c.Flags().Lookup(r.name) == nil {
			t.Errorf("%s: no --%s, the new spelling", r.cmd, r.name)
		}
		err = c.ParseFlags([]string{"--" + r.old + "=1"})
		if want := "unknown flag: --" + r.old; err == nil || err.Error() != want {
			t.Errorf("%s --%s: error %v, want %q", r.cmd, r.old, err, want)
		}
	}
}
