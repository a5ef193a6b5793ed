package answer

import (
	"fmt"
	"strings"
)

// Kind is the kind of question an answer answers; it picks the reading
// rules.
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
// "arithmetic", "math".
func ParseKind(s string) (Kind, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "gsm", "gsm8k":
		return GSM8K, nil
	case "mmlu":
		return MMLU, nil
	case "arithmetic":
		return Arithmetic, nil
	case "math":
		return Math, nil
	}
	return "", fmt.Errorf("answer: unknown kind %q (want gsm8k, mmlu, arithmetic or math)", s)
}
