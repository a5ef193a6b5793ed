package reference

import (
	"fmt"
	"strings"
)

// Kind is the kind of question an answer answers; it picks the reading
// rules.
//
// *Kind is a flag.Value (and a pflag.Value: Type lists the kinds), so that
// a command line reads a kind with ParseKind's rules and error:
//
//	var k answer.Kind
//	flag.Var(&k, "kind", "task of the transcripts")
type Kind string

// The kinds of question whose answers this package reads.
const (
	GSM8K      Kind = "gsm8k"      // grade-school maths: a number
	MMLU       Kind = "mmlu"       // multiple choice: a letter A–D
	Arithmetic Kind = "arithmetic" // an arithmetic expression: an integer
	Math       Kind = "math"       // MATH competition problems: a LaTeX expression
)

// Kinds lists every kind, in the order help texts name them.
var Kinds = []Kind{GSM8K, MMLU, Arithmetic, Math}

// ParseKind reads a kind name, any case: "gsm8k" or "gsm", "mmlu",
// "arithmetic", "math". The error of any other names the accepted ones.
func ParseKind(s string) (Kind, error) {
	switch k := strings.ToLower(strings.TrimSpace(s)); k {
	case "gsm":
		return GSM8K, nil
	default:
		for _, known := range Kinds {
			if k == string(known) {
				return known, nil
			}
		}
	}
	return "", fmt.Errorf("answer: unknown kind %q (want %s; gsm is gsm8k)", s, kindList(", ", " or "))
}

// kindList names the kinds: "gsm8k, mmlu, arithmetic or math".
func kindList(sep, last string) string {
	var b strings.Builder
	for i, k := range Kinds {
		switch {
		case i == 0:
		case i == len(Kinds)-1:
			b.WriteString(last)
		default:
			b.WriteString(sep)
		}
		b.WriteString(string(k))
	}
	return b.String()
}

// String is the kind's name ("" for none).
func (k Kind) String() string { return string(k) }

// Set reads s with ParseKind into k (flag.Value).
func (k *Kind) Set(s string) error {
	v, err := ParseKind(s)
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Type lists the kinds, "gsm8k|mmlu|arithmetic|math": pflag shows it as
// the flag's argument in help texts.
func (k *Kind) Type() string { return kindList("|", "|") }
