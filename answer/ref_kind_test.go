// Code kept verbatim from the answer reader before its caps (commit dad23c3),
// every top-level name prefixed "ref": the oracle TestReadSharedUnchanged and
// FuzzRead hold Read to. It is quadratic on hostile text; tests only.

package answer

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
type refKind string

// The kinds of question whose answers this package reads.
const (
	refGSM8K      refKind = "gsm8k"      // grade-school maths: a number
	refMMLU       refKind = "mmlu"       // multiple choice: a letter A–D
	refArithmetic refKind = "arithmetic" // an arithmetic expression: an integer
	refMath       refKind = "math"       // MATH competition problems: a LaTeX expression
)

// Kinds lists every kind, in the order help texts name them.
var refKinds = []refKind{refGSM8K, refMMLU, refArithmetic, refMath}

// ParseKind reads a kind name, any case: "gsm8k" or "gsm", "mmlu",
// "arithmetic", "math". The error of any other names the accepted ones.
func refParseKind(s string) (refKind, error) {
	switch k := strings.ToLower(strings.TrimSpace(s)); k {
	case "gsm":
		return refGSM8K, nil
	default:
		for _, known := range refKinds {
			if k == string(known) {
				return known, nil
			}
		}
	}
	return "", fmt.Errorf("answer: unknown kind %q (want %s; gsm is gsm8k)", s, refkindList(", ", " or "))
}

// kindList names the kinds: "gsm8k, mmlu, arithmetic or math".
func refkindList(sep, last string) string {
	var b strings.Builder
	for i, k := range refKinds {
		switch {
		case i == 0:
		case i == len(refKinds)-1:
			b.WriteString(last)
		default:
			b.WriteString(sep)
		}
		b.WriteString(string(k))
	}
	return b.String()
}

// String is the kind's name ("" for none).
func (k refKind) String() string { return string(k) }

// Set reads s with ParseKind into k (flag.Value).
func (k *refKind) Set(s string) error {
	v, err := refParseKind(s)
	if err != nil {
		return err
	}
	*k = v
	return nil
}

// Type lists the kinds, "gsm8k|mmlu|arithmetic|math": pflag shows it as
// the flag's argument in help texts.
func (k *refKind) Type() string { return refkindList("|", "|") }
