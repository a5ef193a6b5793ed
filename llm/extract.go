package llm

import (
	"regexp"
	"strings"
)

// Extractor reads the normalised answer out of a model's text for a task of
// the given kind; "" when it finds none. The command line wires the
// transcript package's normalisers here, so that live episodes and
// imported transcripts agree; DefaultExtract is the package's own.
type Extractor func(kind, text string) string

var (
	thinkBlock = regexp.MustCompile(`(?is)<think>.*?</think>`)
	numberRe   = regexp.MustCompile(`-?\d+(?:,\d{3})*(?:\.\d+)?`)
	// The ways a letter answer is written, tried together so that the last
	// one in the text wins: "(D)", "\boxed{D}", "answer is **D**",
	// "Answer: D", and "(X) D" (the format string copied, then the letter).
	letterRe = regexp.MustCompile(`\(([A-D])\)|\\boxed\{\s*(?:\\text\{)?\(?([A-D])\b|(?i:answer(?:\s+is|\s*:))\s*\**\s*\(?([A-D])\b|\(X\)\s*\**([A-D])\b`)
)

// StripThinking removes the <think>…</think> blocks reasoning models write
// before their answer, and an unclosed <think> with all that follows it
// (a completion cut off while thinking has no answer).
func StripThinking(text string) string {
	text = thinkBlock.ReplaceAllString(text, "")
	if i := strings.Index(strings.ToLower(text), "<think>"); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSpace(text)
}

// DefaultExtract is a plain answer reader, thinking stripped first:
//
//   - gsm: the content of the last \boxed{...} (braces balanced), read as
//     its last number when it holds one; else the number after the last
//     "####"; else the last number of the text. Numbers lose thousands
//     commas and trailing fractional zeros ("1,250.50" → "1250.5").
//   - mmlu: the letter of the last "(A)".."(D)", "\boxed{A}",
//     "answer is A" / "answer: A" (bold or not), or "(X) A".
//
// Other kinds read nothing.
func DefaultExtract(kind, text string) string {
	text = StripThinking(text)
	switch kind {
	case KindGSM:
		if box, ok := lastBoxed(text); ok {
			if strings.Contains(box, `\frac`) {
				return strings.TrimSpace(box)
			}
			if m := numberRe.FindAllString(box, -1); len(m) > 0 {
				return NormalizeNumber(m[len(m)-1])
			}
			return strings.TrimSpace(box)
		}
		if i := strings.LastIndex(text, "####"); i >= 0 {
			if m := numberRe.FindString(text[i:]); m != "" {
				return NormalizeNumber(m)
			}
		}
		if m := numberRe.FindAllString(text, -1); len(m) > 0 {
			return NormalizeNumber(m[len(m)-1])
		}
	case KindMMLU:
		if m := letterRe.FindAllStringSubmatch(text, -1); len(m) > 0 {
			for _, g := range m[len(m)-1][1:] {
				if g != "" {
					return strings.ToUpper(g)
				}
			}
		}
	}
	return ""
}

// lastBoxed returns the content of the last \boxed{...}, braces balanced.
func lastBoxed(text string) (string, bool) {
	i := strings.LastIndex(text, `\boxed{`)
	for i >= 0 {
		start := i + len(`\boxed{`)
		depth := 1
		for j := start; j < len(text); j++ {
			switch text[j] {
			case '{':
				depth++
			case '}':
				depth--
				if depth == 0 {
					return text[start:j], true
				}
			}
		}
		// Unbalanced (cut off): try the one before.
		i = strings.LastIndex(text[:i], `\boxed{`)
	}
	return "", false
}

// NormalizeNumber writes a number the one way answers are compared in:
// no thousands commas, no leading '+', no trailing fractional zeros or
// point, no minus on zero.
func NormalizeNumber(s string) string {
	s = strings.TrimPrefix(strings.ReplaceAll(strings.TrimSpace(s), ",", ""), "+")
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// NormalizeGold writes a task's gold answer in the form its extractor
// gives: for gsm the number after "####" when there is one (a GSM8K
// reference solution), normalised like NormalizeNumber, "$" and spaces
// dropped; for mmlu the upper-case letter, parentheses dropped. Other
// text is trimmed and kept.
func NormalizeGold(kind, gold string) string {
	g := strings.TrimSpace(gold)
	switch kind {
	case KindGSM:
		if i := strings.LastIndex(g, "####"); i >= 0 {
			g = strings.TrimSpace(g[i+4:])
		}
		n := strings.NewReplacer("$", "", " ", "").Replace(g)
		if numberRe.FindString(n) == n && n != "" {
			return NormalizeNumber(n)
		}
	case KindMMLU:
		l := strings.ToUpper(strings.Trim(g, "() ."))
		if len(l) == 1 && l[0] >= 'A' && l[0] <= 'Z' {
			return l
		}
	}
	return g
}
