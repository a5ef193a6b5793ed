package answer

import (
	"strings"
)

// answerPart drops a response's reasoning block: the text after the last
// "</think>" when there is one; else the text before an unclosed "<think>"
// (the response was cut off while still thinking, so nothing after it is a
// final answer).
func answerPart(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		return s[i+len("</think>"):]
	}
	if i := strings.Index(s, "<think>"); i >= 0 {
		return s[:i]
	}
	return s
}

// answerText is the part of a response the answer is read from: its answer
// part (answerPart), at most its last MaxAnswerBytes.
func answerText(text string) string {
	work(2 * len(text)) // the searches for </think> and <think>
	return tail(answerPart(text), MaxAnswerBytes)
}

// boxes returns the contents of the last MaxBoxes \boxed{...} (and
// \fbox{...}) of s, in order of their opening, each cut to its first
// MaxBoxBytes. Braces nest; a box left open runs to the end of s. A box
// inside a box is listed after its container, so the last element is the
// innermost of the last boxes. One pass: the brace depth is counted once,
// and each box closes where the depth falls back to where it opened.
func boxes(s string) []string {
	work(len(s))
	type span struct{ start, end, depth int }
	var all []span
	var open []int // indexes in all of the boxes still open, innermost last
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			if depth == 0 {
				continue // closes nothing this pass has seen open
			}
			depth--
			if n := len(open); n > 0 && all[open[n-1]].depth == depth {
				all[open[n-1]].end = i
				open = open[:n-1]
			}
		case '\\':
			rest := s[i+1:]
			var n int
			switch {
			case strings.HasPrefix(rest, "boxed"):
				n = len("boxed")
			case strings.HasPrefix(rest, "fbox"):
				n = len("fbox")
			default:
				continue
			}
			k := i + 1 + n
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k < len(s) && s[k] == '{' {
				open = append(open, len(all))
				all = append(all, span{k + 1, len(s), depth})
				depth++
				i = k // the box's brace is counted here
			} else {
				i = k - 1 // the name and spaces hold no brace; s[k] is read next
			}
		}
	}
	all = all[max(0, len(all)-MaxBoxes):]
	out := make([]string, len(all))
	for i, b := range all {
		out[i] = head(s[b.start:b.end], MaxBoxBytes)
		work(len(out[i]))
	}
	return out
}

// delatex turns the LaTeX that wraps answers into plain text: \frac{a}{b}
// becomes a/b, escaped "\$" and "\%" lose the backslash, thin spaces and
// "{,}" go, and any other command (\text, \times, \mathrm, ...) becomes a
// space so that the digits around it stay apart. Hand-written scans, not
// regular expressions: Go's backtracking matcher clears a bitmap the size
// of the text for every match, quadratic on texts with many commands.
func delatex(s string) string {
	work(len(s))
	if !strings.ContainsAny(s, `\{`) {
		return s
	}
	work(3 * len(s))
	s = replaceFracs(s, func(b *strings.Builder, num, den string) {
		b.WriteString(num)
		b.WriteByte('/')
		b.WriteString(den)
	})
	s = latexSpacing.Replace(s)
	return replaceCommands(s)
}

// latexSpacing drops LaTeX spacing and unescapes $ and % after delatex's
// fractions; built once, not per answer.
var latexSpacing = strings.NewReplacer(`{,}`, ",", `\,`, "", `\!`, "", `\;`, " ", `\ `, " ",
	`\$`, "$", `\%`, "%")

// replaceFracs rewrites each \frac{a}{b} (also \dfrac, \tfrac; a and b
// holding no brace, white space before the braces) by write, left to
// right, as the regular expression \\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}
// would be replaced.
func replaceFracs(s string, write func(b *strings.Builder, num, den string)) string {
	return rewriteFracs(s, bracedFracArgs, write)
}

// bracedFracArgs reads the two braced arguments of a \frac whose name
// ends at s[k].
func bracedFracArgs(s string, k int) (num, den string, end int, ok bool) {
	num, k, ok = braced(s, k)
	if !ok {
		return "", "", 0, false
	}
	den, end, ok = braced(s, k)
	return num, den, end, ok
}

// rewriteFracs is the one scan behind replaceFracs and replaceShortFracs:
// at each \frac, \dfrac or \tfrac whose arguments args reads (from the
// end of the name; end is just past them), it writes write(num, den) in
// place of the command; anything else is copied. It returns s itself when
// nothing matched.
func rewriteFracs(s string, args func(s string, k int) (num, den string, end int, ok bool), write func(b *strings.Builder, num, den string)) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		k, ok := fracName(s, i)
		if !ok {
			continue
		}
		num, den, end, ok := args(s, k)
		if !ok {
			continue
		}
		b.WriteString(s[last:i])
		write(&b, num, den)
		last, i = end, end-1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// fracName reports whether \frac, \dfrac or \tfrac starts at s[i] (a
// backslash), and where it ends.
func fracName(s string, i int) (int, bool) {
	k := i + 1
	if k < len(s) && (s[k] == 'd' || s[k] == 't') {
		k++
	}
	if !strings.HasPrefix(s[k:], "frac") {
		return 0, false
	}
	return k + len("frac"), true
}

// isSpaceRe is regexp's \s: [\t\n\f\r ].
func isSpaceRe(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// braced reads \s*\{([^{}]*)\} at s[k]: the braces' content and the end.
func braced(s string, k int) (string, int, bool) {
	for k < len(s) && isSpaceRe(s[k]) {
		k++
	}
	if k >= len(s) || s[k] != '{' {
		return "", 0, false
	}
	j := k + 1
	for j < len(s) && s[j] != '{' && s[j] != '}' {
		j++
	}
	if j >= len(s) || s[j] != '}' {
		return "", 0, false
	}
	return s[k+1 : j], j + 1, true
}

// replaceCommands writes each LaTeX command (a backslash and letters) as a
// space.
func replaceCommands(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i+1 < len(s); i++ {
		if s[i] != '\\' || !isLetter(s[i+1]) {
			continue
		}
		j := i + 2
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		b.WriteString(s[last:i])
		b.WriteByte(' ')
		last, i = j, j-1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}
