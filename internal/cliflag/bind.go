// Package cliflag is the command line's flag machinery, apart from the
// commands that use it: Table, the flags several commands share with the
// one meaning each has (Bind defines one, SetDefaults gives it the table's
// default); Parsed and Floats, values a library parses; NumberError and
// InWords, errors in the words of the flags; Command, a command made of a
// flag struct (Runner), with AddHelp its help from files; MaxLine and the
// other values several commands bind the same way. It holds no command
// and no domain rule, and imports no domain package: the flag groups over
// library types (the simulator's, the reward's, --kind…) are cmd/mpdf's
// (flaggroups.go).
package cliflag

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sharedAnnotation marks a flag bound by Bind: its default is set from
// Table once the command knows its path (SetDefaults).
const sharedAnnotation = "mpdf-shared"

// Bind defines the flag name of Table on f, bound to p, with its one
// meaning as usage (and note after it, for what is particular to the
// command); its default is the table's (or the command's exception), set
// by SetDefaults. short is its one-letter form, or "".
func Bind(f *pflag.FlagSet, p any, name, short string, note ...string) {
	usage := Usage(name) + strings.Join(note, "")
	switch v := p.(type) {
	case *int:
		f.IntVarP(v, name, short, 0, usage)
	case *uint64:
		f.Uint64VarP(v, name, short, 0, usage)
	case *float64:
		f.Float64VarP(v, name, short, 0, usage)
	case *bool:
		f.BoolVarP(v, name, short, false, usage)
	case *string:
		f.StringVarP(v, name, short, "", usage)
	case *[]string:
		f.StringSliceVarP(v, name, short, nil, usage)
	case pflag.Value:
		f.VarP(v, name, short, usage)
	default:
		panic(fmt.Sprintf("cliflag: --%s: a %T", name, p))
	}
	_ = f.SetAnnotation(name, sharedAnnotation, nil)
}

// Usage is the meaning of the shared flag name, as its usage text.
func Usage(name string) string { return lookup(name).Meaning }

// lookup is Table's row of name.
func lookup(name string) Shared {
	for _, s := range Table {
		if s.Name == name {
			return s
		}
	}
	panic("cliflag: no shared flag --" + name + " in Table")
}

// SetDefaults gives the flags bound by Bind, on c and under it, the
// table's default for c (its exception's, if it has one).
func SetDefaults(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := f.Annotations[sharedAnnotation]; !ok {
			return
		}
		s := lookup(f.Name)
		def := s.Default
		if ex, ok := s.Except[c.CommandPath()]; ok && ex.Default != "" {
			def = ex.Default
		} else if ok && ex.NoDefault {
			def = ""
		}
		if def != "" && def != "[]" {
			if err := f.Value.Set(def); err != nil {
				panic(fmt.Sprintf("cliflag: --%s default %q: %v", f.Name, def, err))
			}
		}
		if v, ok := f.Value.(*Floats); ok {
			v.set = false // the user's first value replaces the default
		}
		f.DefValue = def
	})
	for _, s := range c.Commands() {
		SetDefaults(s)
	}
}

// BeforeRun runs f after the flags are parsed and before cmd runs, after
// any PreRunE cmd had.
func BeforeRun(cmd *cobra.Command, f func() error) {
	pre := cmd.PreRunE
	cmd.PreRunE = func(cmd *cobra.Command, args []string) error {
		if pre != nil {
			if err := pre(cmd, args); err != nil {
				return err
			}
		}
		return f()
	}
}

// Given lists the flags of names that the user gave on fs, in that order.
func Given(fs *pflag.FlagSet, names ...string) []string {
	var given []string
	for _, n := range names {
		if fs.Changed(n) {
			given = append(given, n)
		}
	}
	return given
}

// Overlay sets the flags the user gave on fs onto the flag set bind
// defines (those it has): flags win over what that set was bound to, a
// config read from a file, say. A flag's value must print as it parses.
func Overlay(fs *pflag.FlagSet, bind func(*pflag.FlagSet)) error {
	onto := pflag.NewFlagSet("overlay", pflag.ContinueOnError)
	bind(onto)
	var err error
	fs.Visit(func(f *pflag.Flag) {
		if g := onto.Lookup(f.Name); g != nil && err == nil {
			err = g.Value.Set(f.Value.String())
		}
	})
	return err
}
