package cliflag

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// Parsed is a flag of a value that its library parses and prints: parse
// reads what the user gave into *p, format prints *p as parse reads it (so
// that a changed flag can be replayed onto another config) and typ is the
// name the help shows for its argument.
func Parsed[T any](p *T, typ string, parse func(string) (T, error), format func(T) string) pflag.Value {
	return parsed[T]{p, typ, parse, format}
}

type parsed[T any] struct {
	p      *T
	typ    string
	parse  func(string) (T, error)
	format func(T) string
}

func (v parsed[T]) Type() string   { return v.typ }
func (v parsed[T]) String() string { return v.format(*v.p) }
func (v parsed[T]) Set(s string) error {
	x, err := v.parse(s)
	if err == nil {
		*v.p = x
	}
	return err
}

// Floats is a comma-separated list of finite numbers (--lambdas): shown as
// given ("0,0.1,0.5"), not as pflag's float64Slice shows it
// ("[0.000000,0.100000,0.500000]"). The first use replaces the default;
// later uses append, so that --lambdas 0 --lambdas 0.5 is 0,0.5.
type Floats struct {
	p   *[]float64
	set bool
}

// NewFloats is a Floats flag that sets *p.
func NewFloats(p *[]float64) *Floats { return &Floats{p: p} }

func (v *Floats) Type() string { return "numbers" }

func (v *Floats) String() string {
	s := make([]string, len(*v.p))
	for i, f := range *v.p {
		s[i] = strconv.FormatFloat(f, 'g', -1, 64)
	}
	return strings.Join(s, ",")
}

func (v *Floats) Set(s string) error {
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

// Count is an int flag set to def that refuses a negative value when
// parsed, for a count (NumberError words the error).
func Count(p *int, def int) pflag.Value {
	*p = def
	return Parsed(p, "int", func(s string) (int, error) {
		n, err := strconv.Atoi(s)
		if err == nil && n < 0 {
			err = errNegative
		}
		return n, err
	}, strconv.Itoa)
}

// errNegative is a Count's error for a negative value.
var errNegative = fmt.Errorf("want ≥ 0")

// Scaled is an int64 flag in units of 2^shift bytes (KiB: 10) that sets
// *p, a number of bytes, to def units to begin with; FlagWords words a
// library's value of *p in the flag's units.
func Scaled(p *int64, shift uint, def int64) pflag.Value {
	*p = def << shift
	return scaled{p, shift}
}

type scaled struct {
	p     *int64
	shift uint
}

func (v scaled) Type() string   { return "int64" }
func (v scaled) String() string { return strconv.FormatInt(*v.p>>v.shift, 10) }
func (v scaled) Set(s string) error {
	n, err := strconv.ParseInt(s, 0, 64) // as pflag's int64 parses
	if err != nil {
		return err
	}
	// n << shift must not wrap (9999999999999 MiB used to read as a
	// negative budget).
	if limit := int64(math.MaxInt64) >> v.shift; n > limit || n < -limit {
		return fmt.Errorf("%s is too large: want at most %d", s, limit)
	}
	*v.p = n << v.shift
	return nil
}

// OptionalInt and OptionalFloat are flags of a library's optional number,
// a pointer left nil for its default: given, they set *p to a new value;
// not given, *p stays nil and the help shows def, the library's default.
func OptionalInt(p **int, def int) pflag.Value {
	atoi := func(s string) (int, error) { // as pflag's int parses
		n, err := strconv.ParseInt(s, 0, 64)
		return int(n), err
	}
	return optional[int]{p, "int", def, atoi, strconv.Itoa}
}

func OptionalFloat(p **float64, def float64) pflag.Value {
	return optional[float64]{p, "float64", def,
		func(s string) (float64, error) { return strconv.ParseFloat(s, 64) },
		func(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }}
}

type optional[T any] struct {
	p      **T
	typ    string
	def    T
	parse  func(string) (T, error)
	format func(T) string
}

func (v optional[T]) Type() string { return v.typ }
func (v optional[T]) String() string {
	if *v.p == nil {
		return v.format(v.def)
	}
	return v.format(**v.p)
}
func (v optional[T]) Set(s string) error {
	x, err := v.parse(s)
	if err == nil {
		*v.p = &x
	}
	return err
}
