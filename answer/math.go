package answer

// arithmetic (ExtractInteger): the last number of the last box, else the
// last number of the text.
//
// math (ExtractMath, NormalizeMath): the last \boxed{...}, else what
// follows the last "The answer is", else a closing "... is $EXPR$." or
// "... is 12 units."; then LaTeX normalisation: display wrappers, spaces,
// "^\circ", "\%", "\$" and \text{} units go, \dfrac is \frac, "x = 3" is
// "3", and numbers ("\frac{1}{2}", "\dfrac12", "1/2", "0.5") are written
// as canonical decimals. Other expressions compare as normalised LaTeX
// text; "(1,2)" and "(2,1)" differ. A statement that is prose is
// unreadable.

import (
	"math/big"
	"regexp"
	"strings"
)

// ExtractInteger reads an arithmetic answer: the last number of the last
// \boxed{} that holds one, else the last number of the text (the prompt
// asks for the result at the end), in NormalizeNumber's canonical form.
// Reasoning in <think>...</think> is ignored.
func ExtractInteger(text string) string {
	s := answerText(text)
	bs := boxes(s)
	for i := len(bs) - 1; i >= 0; i-- {
		if v := lastNumber(joinGroups(delatex(bs[i]))); v != "" {
			return v
		}
	}
	if len(bs) > 0 {
		return ""
	}
	return lastNumber(delatex(s))
}

// lastAnswerIs returns the group of the last match of
// (?i)answer\s+is\s*:?\s*([^\n]*) in s — what follows "The answer is" on its
// line — found in one pass without the regexp, which had no literal to
// skip to (FuzzScanners holds it to the expression).
func lastAnswerIs(s string) (string, bool) {
	group, found := "", false
	for p := 0; p < len(s); {
		if c := s[p]; c != 'a' && c != 'A' {
			p++
			continue
		}
		q, ok := foldPrefix(s, p, "answer")
		r := spaces(s, q)
		if ok && r > q {
			if e, ok := foldPrefix(s, r, "is"); ok {
				e = spaces(s, e)
				if e < len(s) && s[e] == ':' {
					e++
				}
				e = spaces(s, e)
				end := len(s)
				if k := strings.IndexByte(s[e:], '\n'); k >= 0 {
					end = e + k
				}
				group, found, p = s[e:end], true, end
				continue
			}
		}
		p++
	}
	return group, found
}

// endIsMathTail is the part of t endIsMathRe can match in, from the third
// last "$" (its match holds two, and ends the text): the regexp then
// reads a tail, not the whole text, and reads it alike.
func endIsMathTail(t string) string {
	p := len(t)
	for range 3 {
		if p = strings.LastIndexByte(t[:p], '$'); p < 0 {
			return t
		}
	}
	return t[p:]
}

// endIsNumberTail is the part of t endIsNumberRe can match in: from the
// last byte none of its match can hold (white space, digits, letters,
// ",", "." and "-" only), which keeps \b's reading at the match's start.
func endIsNumberTail(t string) string {
	for p := len(t) - 1; p >= 0; p-- {
		switch c := t[p]; {
		case isSpaceRe(c), isDigit(c), isLetter(c), c == ',', c == '.', c == '-':
		default:
			return t[p:]
		}
	}
	return t
}

var (
	// dollarRe takes the first inline $...$ of a statement.
	dollarRe = regexp.MustCompile(`^\$+([^$]+)\$+`)
	// endIsMathRe and endIsNumberRe read a text whose last sentence ends
	// "is $EXPR$." or "is 11 [unit]." (DyLAN's answers often close so).
	endIsMathRe   = regexp.MustCompile(`\bis\s+\$([^$]+)\$\s*\.?$`)
	endIsNumberRe = regexp.MustCompile(`\bis\s+(-?\d[\d,]*(?:\.\d+)?)(?:\s+[A-Za-z]+)?\s*\.?$`)
	// parenMathRe takes a statement that starts with \(...\).
	parenMathRe = regexp.MustCompile(`^\\\((.*?)\\\)`)
	// numberUnitsRe is a number followed by plain words: "6 trees".
	numberUnitsRe = regexp.MustCompile(`^(-?[\d,]*\.?\d+)\s+[A-Za-z][A-Za-z ]*$`)
	// proseRe finds a word of plain prose (not a LaTeX command): such a
	// statement is a sentence, not an expression.
	proseRe = regexp.MustCompile(`(?:^|[^\\A-Za-z])[A-Za-z]{3,}\s+[A-Za-z]{2,}`)
)

// ExtractMath reads a MATH answer: the last \boxed{...} (braces nest),
// else the statement after the last "The answer is" (its first $...$ when
// it starts with one, else the rest of its line less a closing period),
// else a text that ends "is $EXPR$." or "is NUMBER [unit]." — always
// normalised by NormalizeMath. A statement that is prose rather than an
// expression ("the answer is not an integer") is unreadable; a number
// followed by plain words is the number ("6 trees" → 6).
func ExtractMath(text string) string {
	s := answerText(text)
	if bs := boxes(s); len(bs) > 0 {
		return NormalizeMath(bs[len(bs)-1])
	}
	work(4 * len(s)) // answerIsRe, the trim, endIsMathRe, endIsNumberRe
	stated, ok := lastAnswerIs(s)
	if !ok {
		// The closing sentence "..., the value of $n$ is $11$." states it too.
		t := strings.TrimSpace(s)
		if m := endIsMathRe.FindStringSubmatch(endIsMathTail(t)); m != nil {
			return NormalizeMath(m[1])
		}
		if m := endIsNumberRe.FindStringSubmatch(endIsNumberTail(t)); m != nil {
			return NormalizeMath(m[1])
		}
		return ""
	}
	c := strings.TrimSpace(stated)
	if m := dollarRe.FindStringSubmatch(c); m != nil {
		return NormalizeMath(m[1])
	}
	if m := parenMathRe.FindStringSubmatch(c); m != nil {
		return NormalizeMath(m[1])
	}
	c = strings.TrimRight(c, " .")
	if m := numberUnitsRe.FindStringSubmatch(c); m != nil {
		return NormalizeMath(m[1])
	}
	if proseRe.MatchString(c) {
		return ""
	}
	return NormalizeMath(c)
}

var (
	textRe      = regexp.MustCompile(`\\(?:text|textbf|mbox|mathrm)\s*\{([^{}]*)\}`)
	fracShortRe = regexp.MustCompile(`\\frac\s*(\d)\s*(\d)`)
	fracHalfRe  = regexp.MustCompile(`\\frac\s*(\d)\s*\{`)
	fracHalf2Re = regexp.MustCompile(`\\frac\s*(\{[^{}]*\})\s*(\d)`)
	sqrtShortRe = regexp.MustCompile(`\\sqrt\s*(\d)`)
	eqLeftRe    = regexp.MustCompile(`^[A-Za-z](?:_\{?\w+\}?)?(?:\([A-Za-z]\))?=`)
	plainNumRe  = regexp.MustCompile(`^-?(?:\d{1,3}(?:,\d{3})+|\d+)?(?:\.\d+)?(?:[eE][+-]?\d+)?$`)
	// ratioRe: a signed \frac of numbers (the sign outside or inside either
	// brace: \frac{-1}{2} is -\frac12) or a plain a/b.
	ratioRe = regexp.MustCompile(`^(-?)(?:\\frac\{(-?\d+(?:\.\d+)?)\}\{(-?\d+(?:\.\d+)?)\}|(\d+(?:\.\d+)?)/(\d+(?:\.\d+)?))$`)
)

// mathNoise drops what NormalizeMath ignores (sizing, spacing, delimiters,
// degrees, percent and dollar signs) and spells fractions one way; built
// once, not per answer.
var mathNoise = strings.NewReplacer(
	`\left`, "", `\right`, "", `\displaystyle`, "", `\!`, "", `\,`, "", `\;`, "", `\ `, "",
	`\(`, "", `\)`, "", `\[`, "", `\]`, "",
	`^\circ`, "", `^{\circ}`, "", `\circ`, "", `\%`, "", `%`, "", `\$`, "", `$`, "",
	`\dfrac`, `\frac`, `\tfrac`, `\frac`, "{,}", ",",
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
func NormalizeMath(s string) string {
	work(16 * len(s)) // some 16 passes, each linear
	s = strings.TrimSpace(s)
	if m := textRe.FindStringSubmatch(s); m != nil && strings.TrimSpace(textRe.ReplaceAllString(s, "")) == "" {
		return strings.TrimSpace(m[1]) // a text answer: "\text{Devon}"
	}
	s = textRe.ReplaceAllString(s, "")
	s = mathNoise.Replace(s)
	s = strings.Join(strings.Fields(s), "")
	s = strings.TrimRight(s, ".")
	s = fracShortRe.ReplaceAllString(s, `\frac{$1}{$2}`)
	s = fracHalfRe.ReplaceAllString(s, `\frac{$1}{`)
	s = fracHalf2Re.ReplaceAllString(s, `\frac$1{$2}`)
	s = sqrtShortRe.ReplaceAllString(s, `\sqrt{$1}`)
	if loc := eqLeftRe.FindStringIndex(s); loc != nil && strings.Count(s, "=") == 1 {
		s = s[loc[1]:]
	}
	if plainNumRe.MatchString(s) && s != "" && s != "-" && s != "." && s != "-." && !sciWithoutMantissa(s) {
		// read as written: exact, linear in any length
		return canonicalLiteral(strings.TrimPrefix(s, "-"), strings.HasPrefix(s, "-"))
	}
	if len(s) > MaxQuotientBytes {
		return s // no fraction of numbers this long is divided
	}
	if m := ratioRe.FindStringSubmatch(s); m != nil {
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
			return canonical(v)
		}
	}
	return s
}

// sciWithoutMantissa reports an exponent with no digits before it ("e3",
// "-.e3"), which plainNumRe lets through: not a number.
func sciWithoutMantissa(s string) bool {
	i := strings.IndexAny(s, "eE")
	return i >= 0 && !strings.ContainsAny(s[:i], "0123456789")
}
