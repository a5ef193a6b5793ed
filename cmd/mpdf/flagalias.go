package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// renamed keeps old working, for one release, as a deprecated spelling of
// the flag now called name: giving --old sets --name (so that
// Changed(name) and required-flag checks see it) and pflag prints "Flag
// --old has been deprecated, use --name (...)" on stderr. The old spelling
// is hidden from the help. Define name first.
func renamed(fs *pflag.FlagSet, old, name string) {
	to := fs.Lookup(name)
	if to == nil {
		panic("renamed: no flag --" + name)
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

// floatsValue is a comma-separated list of finite numbers, --lambdas: shown
// as given ("0,0.1,0.5"), not as pflag's float64Slice shows it
// ("[0.000000,0.100000,0.500000]"). The first use replaces the default;
// later uses append, so that --lambdas 0 --lambdas 0.5 is 0,0.5.
type floatsValue struct {
	p   *[]float64
	set bool
}

func newFloats(p *[]float64) *floatsValue { return &floatsValue{p: p} }

func (v *floatsValue) Type() string { return "numbers" }

func (v *floatsValue) String() string {
	s := make([]string, len(*v.p))
	for i, f := range *v.p {
		s[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (v *floatsValue) Set(s string) error {
	var fs []float64
	for part := range strings.SplitSeq(s, ",") {
		part = strings.TrimSpace(part)
		f, err := strconv.ParseFloat(part, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("%q is not a finite number (want numbers separated by commas, e.g. 0,0.1,0.5)", part)
		}
		fs = append(fs, f)
	}
	if !v.set {
		*v.p, v.set = nil, true
	}
	*v.p = append(*v.p, fs...)
	return nil
}

// seedWas0 tells users of a command whose --seed defaulted to 0 that it
// now defaults to 1, as every --seed does (issue 21): the same command
// without --seed draws other episodes than before.
const seedWas0 = "; 1 by default as in every command, it was 0 before December 2026 (--seed 0 plays the old episodes)"
