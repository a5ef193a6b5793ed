// Code kept verbatim from the answer reader before its caps (commit dad23c3),
// every top-level name prefixed "ref": the oracle TestReadSharedUnchanged and
// FuzzRead hold Read to. It is quadratic on hostile text; tests only.

package answer

import (
	"regexp"
	"strings"
)

// answerPart drops a response's reasoning block: the text after the last
// "</think>" when there is one; else the text before an unclosed "<think>"
// (the response was cut off while still thinking, so nothing after it is a
// final answer).
func refanswerPart(s string) string {
	if i := strings.LastIndex(s, "</think>"); i >= 0 {
		return s[i+len("</think>"):]
	}
	if i := strings.Index(s, "<think>"); i >= 0 {
		return s[:i]
	}
	return s
}

// boxes returns the contents of every \boxed{...} (and \fbox{...}) in s, in
// order of their opening. Braces nest; a box left open runs to the end of s.
// A box inside a box is listed after its container, so the last element is
// the innermost of the last boxes.
func refboxes(s string) []string {
	var out []string
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\\')
		if j < 0 {
			break
		}
		i += j
		rest := s[i+1:]
		var n int
		switch {
		case strings.HasPrefix(rest, "boxed"):
			n = len("boxed")
		case strings.HasPrefix(rest, "fbox"):
			n = len("fbox")
		default:
			i++
			continue
		}
		k := i + 1 + n
		for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
			k++
		}
		if k >= len(s) || s[k] != '{' {
			i = k
			continue
		}
		start, depth := k+1, 1
		end := len(s)
		for p := start; p < len(s); p++ {
			if s[p] == '{' {
				depth++
			} else if s[p] == '}' {
				if depth--; depth == 0 {
					end = p
					break
				}
			}
		}
		out = append(out, s[start:end])
		i = start // continue inside: nested boxes are boxes too
	}
	return out
}

var (
	reffracRe    = regexp.MustCompile(`\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}`)
	reflatexCmRe = regexp.MustCompile(`\\[A-Za-z]+`)
)

// delatex turns the LaTeX that wraps answers into plain text: \frac{a}{b}
// becomes a/b, escaped "\$" and "\%" lose the backslash, thin spaces and
// "{,}" go, and any other command (\text, \times, \mathrm, ...) becomes a
// space so that the digits around it stay apart.
func refdelatex(s string) string {
	if !strings.ContainsAny(s, `\{`) {
		return s
	}
	s = reffracRe.ReplaceAllString(s, "$1/$2")
	s = strings.NewReplacer(`{,}`, ",", `\,`, "", `\!`, "", `\;`, " ", `\ `, " ",
		`\$`, "$", `\%`, "%").Replace(s)
	return reflatexCmRe.ReplaceAllString(s, " ")
}
