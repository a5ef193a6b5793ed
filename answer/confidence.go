package answer

import "strings"

// The stated-confidence scan of ProfileOf: selfConfRe's matches, found in
// one pass without a regular expression — the regexp's backtracker clears a
// bitmap of the rest of the text at each match, quadratic in a text of many
// "Confidence:" lines. FuzzScanners holds the scan to the expression:
//
//	(?im)^[\s*_#>-]*confidence(?:\s+(?:level|score))?[*_]*\s*[:=][*_]*\s*[*_]*\s*(\d+(?:\.\d+)?)\s*(%|/\s*10\b|/\s*100\b)?
//
// As in stated.go, each run of free characters can be matched one way only
// (the next item needs a letter, a colon or a digit the run's classes do
// not hold), so the greedy reading is the expression's.

// confMatch is one match: its end, the number and the scale as written.
type confMatch struct {
	end          int
	number, unit string
}

// lastSelfConf returns the number and scale of the last match of
// selfConfRe in text.
func lastSelfConf(text string) (number, unit string, ok bool) {
	work(len(text))
	for p := 0; p < len(text); {
		if p > 0 && text[p-1] != '\n' {
			k := strings.IndexByte(text[p:], '\n') // matches start at line starts
			if k < 0 {
				break
			}
			p += k + 1
			continue
		}
		if m, found := selfConfAt(text, p); found {
			number, unit, ok = m.number, m.unit, true
			if m.end > p {
				p = m.end
				continue
			}
		}
		p++
	}
	return number, unit, ok
}

// selfConfAt matches selfConfRe at the line start text[p].
func selfConfAt(s string, p int) (confMatch, bool) {
	q := p
	for q < len(s) && confLead(s[q]) {
		q++
	}
	q, ok := foldPrefix(s, q, "confidence")
	if !ok {
		return confMatch{}, false
	}
	if r := spaces(s, q); r > q {
		for _, w := range [...]string{"level", "score"} {
			if e, ok := foldPrefix(s, r, w); ok {
				if m, ok := confTail(s, e); ok {
					return m, true
				}
				break // the words start with different letters
			}
		}
	}
	return confTail(s, q)
}

// confTail matches selfConfRe after "confidence" (and its noun):
// [*_]*\s*[:=][*_]*\s*[*_]*\s*(\d+(?:\.\d+)?)\s*(%|/\s*10\b|/\s*100\b)?
func confTail(s string, q int) (confMatch, bool) {
	q = stars(s, q, false)
	q = spaces(s, q)
	if q >= len(s) || s[q] != ':' && s[q] != '=' {
		return confMatch{}, false
	}
	q = spaces(s, stars(s, q+1, false))
	q = spaces(s, stars(s, q, false))
	start := q
	for q < len(s) && isDigit(s[q]) {
		q++
	}
	if q == start {
		return confMatch{}, false
	}
	if q+1 < len(s) && s[q] == '.' && isDigit(s[q+1]) {
		q += 2
		for q < len(s) && isDigit(s[q]) {
			q++
		}
	}
	m := confMatch{number: s[start:q]}
	q = spaces(s, q)
	m.end = q
	switch {
	case q < len(s) && s[q] == '%':
		m.unit, m.end = "%", q+1
	case q < len(s) && s[q] == '/':
		r := spaces(s, q+1)
		for _, n := range [...]string{"10", "100"} {
			if e := r + len(n); strings.HasPrefix(s[r:], n) && (e == len(s) || !isWordByte(s[e])) {
				m.unit, m.end = s[q:e], e
				break
			}
		}
	}
	return m, true
}
