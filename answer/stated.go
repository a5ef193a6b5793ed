package answer

// The stated-answer scan of ExtractLetter: statedRe's matches, found in one
// pass without a regular expression. Go's backtracking matcher clears a
// bitmap the size of the text at every position it tries, and the
// case-insensitive "answer" gives it no literal to skip to: the regexp was
// the largest share of reading an MMLU text. FuzzScanners holds the scan to
// the expression:
//
//	\(([A-D])\)
//	|(?i:answer)(?:\s+(?i:is|would be|should be|remains))?[*_]*\s*[:：]?\s*[*_]*\s*(?:(?i:option)\s+)?\(?([A-D])\b
//	|\([Xx]\)\s*[*_:]*\s*(?:(?i:option)\s+)?\(?([A-D])\b
//	|(?:^|[\s:*])[Xx]\)\s*[*_:]*\s*(?:(?i:option)\s+)?\(?([A-D])(?:[).:]|\s*$)
//
// Each alternative's free part — the run of "*", "_", white space and
// colons before the letter — can only be matched one way (the next item
// needs a letter or "(", which the run's classes hold none of), so the
// greedy reading is the expression's reading, and a match at a position
// is found without backtracking.

// lastStated returns the letter of the last match of statedRe in s, or "".
func lastStated(s string) string {
	work(len(s))
	letter := byte(0)
	for p := 0; p < len(s); {
		if !statedStart[s[p]] && p > 0 {
			p++
			continue
		}
		if end, l, ok := statedAt(s, p); ok {
			letter, p = l, end
			continue
		}
		p++
	}
	if letter == 0 {
		return ""
	}
	return letters[letter-'A']
}

// statedStart marks the bytes a match can start with (past the text's
// first byte, where "X)" may too).
var statedStart = func() (t [256]bool) {
	for _, c := range "(aA \t\n\f\r:*" {
		t[c] = true
	}
	return t
}()

// letters are the option letters as strings, so that returning one does
// not allocate.
var letters = [...]string{"A", "B", "C", "D"}

// statedAt matches statedRe at s[p] (its alternatives in order) and
// returns the match's end and letter.
func statedAt(s string, p int) (end int, letter byte, ok bool) {
	switch c := s[p]; {
	case c == '(':
		if p+2 < len(s) && isAD(s[p+1]) && s[p+2] == ')' {
			return p + 3, s[p+1], true
		}
		if xParen(s, p+1) {
			return statedTail(s, p+3, false)
		}
		return 0, 0, false
	case c == 'a' || c == 'A':
		q, ok := foldPrefix(s, p, "answer")
		if !ok {
			return 0, 0, false
		}
		if r := spaces(s, q); r > q {
			for _, w := range [...]string{"is", "would be", "should be", "remains"} {
				if e, ok := foldPrefix(s, r, w); ok {
					if end, l, ok := answerTail(s, e); ok {
						return end, l, true
					}
					break // the words start with different letters: one can match
				}
			}
		}
		return answerTail(s, q)
	case p == 0 && xParen(s, 0):
		return statedTail(s, 2, true)
	case isSpaceRe(c) || c == ':' || c == '*':
		if xParen(s, p+1) {
			return statedTail(s, p+3, true)
		}
	}
	return 0, 0, false
}

// answerTail matches the rest of statedRe's second alternative after
// "answer" (and its verb): [*_]*\s*[:：]?\s*[*_]*\s*, then the letter.
func answerTail(s string, q int) (int, byte, bool) {
	q = stars(s, q, false)
	q = spaces(s, q)
	if q < len(s) && s[q] == ':' {
		q++
	} else if len(s)-q >= len("：") && s[q:q+len("：")] == "：" {
		q += len("：")
	}
	q = spaces(s, q)
	q = stars(s, q, false)
	q = spaces(s, q)
	return optionLetter(s, q, false)
}

// statedTail matches the rest of statedRe's third (end false) or fourth
// (end true) alternative after the placeholder "X)": \s*[*_:]*\s*, then the
// letter.
func statedTail(s string, q int, end bool) (int, byte, bool) {
	q = spaces(s, q)
	q = stars(s, q, true)
	q = spaces(s, q)
	return optionLetter(s, q, end)
}

// optionLetter matches (?:(?i:option)\s+)?\(?([A-D]) at s[q], then \b, or
// with end (?:[).:]|\s*$).
func optionLetter(s string, q int, end bool) (int, byte, bool) {
	if o, ok := foldPrefix(s, q, "option"); ok {
		if r := spaces(s, o); r > o {
			if e, l, ok := parenLetter(s, r, end); ok {
				return e, l, true
			}
		}
	}
	return parenLetter(s, q, end)
}

// parenLetter matches \(?([A-D]) at s[q] and the alternative's end.
func parenLetter(s string, q int, end bool) (int, byte, bool) {
	if q < len(s) && s[q] == '(' {
		q++
	}
	if q >= len(s) || !isAD(s[q]) {
		return 0, 0, false
	}
	l, q := s[q], q+1
	if !end {
		if q < len(s) && isWordByte(s[q]) {
			return 0, 0, false // \b
		}
		return q, l, true
	}
	if q < len(s) && (s[q] == ')' || s[q] == '.' || s[q] == ':') {
		return q + 1, l, true
	}
	if r := spaces(s, q); r == len(s) {
		return r, l, true
	}
	return 0, 0, false
}

// spaces skips regexp's \s from s[q].
func spaces(s string, q int) int {
	for q < len(s) && isSpaceRe(s[q]) {
		q++
	}
	return q
}

// stars skips [*_]* (with colon, [*_:]*) from s[q].
func stars(s string, q int, colon bool) int {
	for q < len(s) && (s[q] == '*' || s[q] == '_' || colon && s[q] == ':') {
		q++
	}
	return q
}

// xParen reports "X)" or "x)" at s[i].
func xParen(s string, i int) bool {
	return i+1 < len(s) && (s[i] == 'X' || s[i] == 'x') && s[i+1] == ')'
}

func isAD(c byte) bool { return c >= 'A' && c <= 'D' }

// foldPrefix matches the lower-case ASCII word w at s[p] as regexp's (?i)
// does — each letter either case, and "s" also "ſ" (U+017F), "k" also the
// Kelvin sign (U+212A), their other simple case folds — and returns the
// end of the match.
func foldPrefix(s string, p int, w string) (int, bool) {
	for i := 0; i < len(w); i++ {
		c := w[i]
		switch {
		case p < len(s) && (s[p] == c || c >= 'a' && c <= 'z' && s[p] == c-'a'+'A'):
			p++
		case c == 's' && len(s)-p >= len("ſ") && s[p:p+len("ſ")] == "ſ":
			p += len("ſ")
		case c == 'k' && len(s)-p >= len("\u212a") && s[p:p+len("\u212a")] == "\u212a":
			p += len("\u212a")
		default:
			return 0, false
		}
	}
	return p, true
}
