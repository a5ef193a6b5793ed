package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// sharedAnnotation marks a flag bound by shared: its default is set from
// the table once the command knows its path (setSharedDefaults).
const sharedAnnotation = "mpdf-shared"

// shared defines the flag name of sharedFlags on f, bound to p, with its
// one meaning as usage (and note after it, for what is particular to the
// command); its default is the table's (or the command's exception), set
// by newRoot. short is its one-letter form, or "".
func shared(f *pflag.FlagSet, p any, name, short string, note ...string) {
	usage := usageOf(name) + strings.Join(note, "")
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
		panic(fmt.Sprintf("shared --%s: a %T", name, p))
	}
	_ = f.SetAnnotation(name, sharedAnnotation, nil)
}

// usageOf is the meaning of the shared flag name, as its usage text.
func usageOf(name string) string { return sharedFlagNamed(name).Meaning }

// sharedFlagNamed is the table's row of name.
func sharedFlagNamed(name string) sharedFlag {
	for _, s := range sharedFlags {
		if s.Name == name {
			return s
		}
	}
	panic("no shared flag --" + name + " in flagtable.go")
}

// setSharedDefaults gives the flags bound by shared, on c and under it,
// the table's default for c (its exception's, if it has one).
func setSharedDefaults(c *cobra.Command) {
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if _, ok := f.Annotations[sharedAnnotation]; !ok {
			return
		}
		s := sharedFlagNamed(f.Name)
		def := s.Default
		if ex, ok := s.Except[c.CommandPath()]; ok && ex.Default != "" {
			def = ex.Default
		}
		if def != "" && def != "[]" {
			if err := f.Value.Set(def); err != nil {
				panic(fmt.Sprintf("--%s default %q: %v", f.Name, def, err))
			}
		}
		if v, ok := f.Value.(*floatsValue); ok {
			v.set = false // the user's first value replaces the default
		}
		f.DefValue = def
	})
	for _, s := range c.Commands() {
		setSharedDefaults(s)
	}
}
