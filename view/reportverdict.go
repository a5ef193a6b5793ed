package view

import (
	"strings"
)

// The report opens with the study's verdict (env.Judge, the one decision
// rule, as study.VerdictLine writes it): per λ and pooled, a sentence a
// reader takes in at a glance — which policy to use, and why in words —
// above the line itself, whose figures are report.md's.

// verdictHeadline is one verdict as the page shows it.
type verdictHeadline struct {
	Who    string // "mpdf λ=0.1", or "All λ pooled"
	Price  string // "λ 0.1, 10 points per 1000 tokens"
	Use    string // the row to use
	Reason string // why, without the figures: "majority is as accurate or more at fewer tokens; no row is more accurate."
	Line   string // the whole line, figures and all
}

// headline reads a verdict line, "NAME, played PLAY — verdict (PRICE):
// use ROW: WHY." (study.VerdictLine of env.Verdict.Line); a line of
// another shape keeps only its text (Line), and the page shows it as it
// is.
func headline(v studyVerdict) verdictHeadline {
	h := verdictHeadline{Line: v.Line}
	_, rest, ok := strings.Cut(v.Line, " — verdict (")
	if !ok {
		return h
	}
	price, sentence, ok := strings.Cut(rest, "): ")
	if !ok || !strings.HasPrefix(sentence, "use ") {
		return h
	}
	_, why, ok := strings.Cut(sentence, ": ")
	if !ok || v.Use == "" {
		return h
	}
	h.Who, h.Price, h.Use = v.Policy, price, v.Use
	if v.Policy == "all λ" {
		h.Who = "All λ pooled"
	} else {
		// "this policy" is the policy judged, named in the headline.
		why = strings.ReplaceAll(why, "this policy", v.Policy)
	}
	h.Reason = withoutParens(why)
	return h
}

// withoutParens is s without its parenthesised asides (the figures the
// line cites), and the space before each.
func withoutParens(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	out := b.String()
	for _, f := range [][2]string{{"  ", " "}, {" ;", ";"}, {" .", "."}, {" ,", ","}} {
		out = strings.ReplaceAll(out, f[0], f[1])
	}
	return strings.TrimSpace(out)
}
