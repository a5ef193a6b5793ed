// Code kept verbatim from the answer reader before its caps (commit dad23c3),
// every top-level name prefixed "ref": the oracle TestReadSharedUnchanged and
// FuzzRead hold Read to. It is quadratic on hostile text; tests only.

package answer

import (
	"math/big"
	"regexp"
	"strings"
)

// ExtractInteger reads an arithmetic answer: the last number of the last
// \boxed{} that holds one, else the last number of the text (the prompt
// asks for the result at the end), in NormalizeNumber's canonical form.
// Reasoning in <think>...</think> is ignored.
func refExtractInteger(text string) string {
	s := refanswerPart(text)
	bs := refboxes(s)
	for i := len(bs) - 1; i >= 0; i-- {
		if v := reflastNumber(refjoinGroups(refdelatex(bs[i]))); v != "" {
			return v
		}
	}
	if len(bs) > 0 {
		return ""
	}
	return reflastNumber(refdelatex(s))
}

var (
	// answerIsRe finds "The answer is" and what follows on its line.
	refanswerIsRe = regexp.MustCompile(`(?i)answer\s+is\s*:?\s*([^\n]*)`)
	// dollarRe takes the first inline $...$ of a statement.
	refdollarRe = regexp.MustCompile(`^\$+([^$]+)\$+`)
	// endIsMathRe and endIsNumberRe read a text whose last sentence ends
	// "is $EXPR$." or "is 11 [unit]." (DyLAN's answers often close so).
	refendIsMathRe   = regexp.MustCompile(`\bis\s+\$([^$]+)\$\s*\.?$`)
	refendIsNumberRe = regexp.MustCompile(`\bis\s+(-?\d[\d,]*(?:\.\d+)?)(?:\s+[A-Za-z]+)?\s*\.?$`)
	// parenMathRe takes a statement that starts with \(...\).
	refparenMathRe = regexp.MustCompile(`^\\\((.*?)\\\)`)
	// numberUnitsRe is a number followed by plain words: "6 trees".
	refnumberUnitsRe = regexp.MustCompile(`^(-?[\d,]*\.?\d+)\s+[A-Za-z][A-Za-z ]*$`)
	// proseRe finds a word of plain prose (not a LaTeX command): such a
	// statement is a sentence, not an expression.
	refproseRe = regexp.MustCompile(`(?:^|[^\\A-Za-z])[A-Za-z]{3,}\s+[A-Za-z]{2,}`)
)

// ExtractMath reads a MATH answer: the last \boxed{...} (braces nest),
// else the statement after the last "The answer is" (its first $...$ when
// it starts with one, else the rest of its line less a closing period),
// else a text that ends "is $EXPR$." or "is NUMBER [unit]." — always
// normalised by NormalizeMath. A statement that is prose rather than an
// expression ("the answer is not an integer") is unreadable; a number
// followed by plain words is the number ("6 trees" → 6).
func refExtractMath(text string) string {
	s := refanswerPart(text)
	if bs := refboxes(s); len(bs) > 0 {
		return refNormalizeMath(bs[len(bs)-1])
	}
	ms := refanswerIsRe.FindAllStringSubmatch(s, -1)
	if len(ms) == 0 {
		// The closing sentence "..., the value of $n$ is $11$." states it too.
		t := strings.TrimSpace(s)
		if m := refendIsMathRe.FindStringSubmatch(t); m != nil {
			return refNormalizeMath(m[1])
		}
		if m := refendIsNumberRe.FindStringSubmatch(t); m != nil {
			return refNormalizeMath(m[1])
		}
		return ""
	}
	c := strings.TrimSpace(ms[len(ms)-1][1])
	if m := refdollarRe.FindStringSubmatch(c); m != nil {
		return refNormalizeMath(m[1])
	}
	if m := refparenMathRe.FindStringSubmatch(c); m != nil {
		return refNormalizeMath(m[1])
	}
	c = strings.TrimRight(c, " .")
	if m := refnumberUnitsRe.FindStringSubmatch(c); m != nil {
		return refNormalizeMath(m[1])
	}
	if refproseRe.MatchString(c) {
		return ""
	}
	return refNormalizeMath(c)
}

var (
	reftextRe      = regexp.MustCompile(`\\(?:text|textbf|mbox|mathrm)\s*\{([^{}]*)\}`)
	reffracShortRe = regexp.MustCompile(`\\frac\s*(\d)\s*(\d)`)
	reffracHalfRe  = regexp.MustCompile(`\\frac\s*(\d)\s*\{`)
	reffracHalf2Re = regexp.MustCompile(`\\frac\s*(\{[^{}]*\})\s*(\d)`)
	refsqrtShortRe = regexp.MustCompile(`\\sqrt\s*(\d)`)
	refeqLeftRe    = regexp.MustCompile(`^[A-Za-z](?:_\{?\w+\}?)?(?:\([A-Za-z]\))?=`)
	refplainNumRe  = regexp.MustCompile(`^-?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+-]?\d+)?$`) // exponents: issue 34
	// ratioRe: a signed \frac of numbers (the sign outside or inside either
	// brace: \frac{-1}{2} is -\frac12) or a plain a/b.
	refratioRe = regexp.MustCompile(`^(-?)(?:\\frac\{(-?\d+(?:\.\d+)?)\}\{(-?\d+(?:\.\d+)?)\}|(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?))$`)
)

// NormalizeMath writes a MATH answer the one way answers compare in:
//
//   - display wrappers go: "$", "\(" "\)", "\left", "\right", "\displaystyle",
//     "\!", "\,", "\;", spaces, a closing period;
//   - units and decoration go: "^\circ", "^{\circ}", "\%", "%", "\$",
//     and a \text{...} (or \mbox, \mathrm) next to other content — a whole
//     answer that is one \text{...} keeps the text;
//   - "x = 3" (one variable, then "=") is "3";
//   - \dfrac and \tfrac are \frac; "\frac12" is "\frac{1}{2}"; "\sqrt2" is "\sqrt{2}";
//   - a plain number, "a/b" or \frac{a}{b} of numbers (signed outside or
//     inside the braces) is written by NormalizeNumber's canonical decimal,
//     so "\frac{1}{2}", "\dfrac12", "1/2" and "0.5" are all "0.5",
//     "\frac{-1}{2}" and "-1/2" are "-0.5", and "15,000" is "15000".
//
// Other expressions are compared as the normalised LaTeX text.
func refNormalizeMath(s string) string {
	s = strings.TrimSpace(s)
	if m := reftextRe.FindStringSubmatch(s); m != nil && strings.TrimSpace(reftextRe.ReplaceAllString(s, "")) == "" {
		return strings.TrimSpace(m[1]) // a text answer: "\text{Devon}"
	}
	s = reftextRe.ReplaceAllString(s, "")
	s = strings.NewReplacer(
		`\left`, "", `\right`, "", `\displaystyle`, "", `\!`, "", `\,`, "", `\;`, "", `\ `, "",
		`\(`, "", `\)`, "", `\[`, "", `\]`, "",
		`^\circ`, "", `^{\circ}`, "", `\circ`, "", `\%`, "", `%`, "", `\$`, "", `$`, "",
		`\dfrac`, `\frac`, `\tfrac`, `\frac`, "{,}", ",",
	).Replace(s)
	s = strings.Join(strings.Fields(s), "")
	s = strings.TrimRight(s, ".")
	s = reffracShortRe.ReplaceAllString(s, `\frac{$1}{$2}`)
	s = reffracHalfRe.ReplaceAllString(s, `\frac{$1}{`)
	s = reffracHalf2Re.ReplaceAllString(s, `\frac$1{$2}`)
	s = refsqrtShortRe.ReplaceAllString(s, `\sqrt{$1}`)
	if loc := refeqLeftRe.FindStringIndex(s); loc != nil && strings.Count(s, "=") == 1 {
		s = s[loc[1]:]
	}
	if refplainNumRe.MatchString(s) && s != "" && s != "-" {
		if v, ok := new(big.Rat).SetString(strings.ReplaceAll(s, ",", "")); ok {
			return refcanonical(v)
		}
	}
	if m := refratioRe.FindStringSubmatch(s); m != nil {
		num, den := m[2], m[3]
		if num == "" {
			num, den = m[4], m[5]
		}
		a, okA := new(big.Rat).SetString(num)
		b, okB := new(big.Rat).SetString(den)
		if okA && okB && b.Sign() != 0 {
			v := a.Quo(a, b)
			if m[1] == "-" {
				v.Neg(v)
			}
			return refcanonical(v)
		}
	}
	return s
}
