package answer

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// HedgeWords are the words and two-word phrases counted as hedges,
// matched whole and case-insensitively ("wait" and "hmm" are there because
// reasoning models mark second thoughts with them). A phrase matches two
// adjacent words, whatever separates them.
var HedgeWords = []string{
	"maybe", "perhaps", "possibly", "probably", "might", "likely", "unlikely",
	"seems", "seem", "appears", "assume", "assuming", "approximately",
	"roughly", "uncertain", "unsure", "not sure", "i think", "i believe",
	"i guess", "could be", "wait", "hmm", "alternatively",
}

// hedgeSet holds HedgeWords, phrases with their words joined by one space.
var hedgeSet = func() map[string]bool {
	m := make(map[string]bool, len(HedgeWords))
	for _, w := range HedgeWords {
		m[w] = true
	}
	return m
}()

// maxHedge bounds the words worth looking up: longer ones are no hedge.
const maxHedge = 16

// hedgeFirst[len][c] marks the lengths and first letters of the words of
// HedgeWords (phrases: of their words), so that most words are passed over
// without a map lookup; leadWords are the first words of the phrases.
var hedgeFirst, leadFirst = func() (h, l [maxHedge + 1][256]bool) {
	for _, w := range HedgeWords {
		first, rest, phrase := strings.Cut(w, " ")
		for _, x := range []string{first, rest} {
			if x != "" && len(x) <= maxHedge {
				h[len(x)][x[0]] = true
			}
		}
		if phrase && len(first) <= maxHedge {
			l[len(first)][first[0]] = true
		}
	}
	return h, l
}()

// A stated confidence on a line of its own — "Confidence: 0.8",
// "**Confidence:** 80%", "confidence = 8/10" — is found by lastSelfConf
// (confidence.go).

// Profile is the reasoning profile of an answer text, as ProfileOf
// measures it; the rollout format records it with each turn (data.Profile
// is this type) and a policy reads it as metapolicy.Profile. Its meaning is
// the measuring, which lives here: the counts are of the text, the
// confidence is one the text states (nil when it states none).
type Profile struct {
	Steps          int      `json:"steps,omitempty"`
	Tokens         int      `json:"tokens,omitempty"`
	Hedges         int      `json:"hedges,omitempty"`
	SelfConfidence *float64 `json:"self_confidence,omitempty"`
}

// EstimateTokens estimates the tokens of a text as ⌈runes/4⌉: the
// transcripts record no token counts, and about four characters per token
// is the usual rate of English under BPE tokenizers. It is an estimate for
// costs and profiles, not a count. It is one rule for every source, even
// when a server counted the tokens, so that the profile's Tokens means the
// same in transcripts and live; costs (data.Turn.Tokens) may use a
// server's counts, the profile does not.
func EstimateTokens(s string) int {
	return (runeCount(s) + 3) / 4
}

// runeCount is utf8.RuneCountInString, eight ASCII bytes at a time. The
// text is cut only before a byte that starts a rune (or is invalid), where
// no rune the decoder reads can straddle the cut, so the counts add up.
func runeCount(s string) int {
	n := 0
	for len(s) >= 8 {
		if s[0]|s[1]|s[2]|s[3]|s[4]|s[5]|s[6]|s[7] < utf8.RuneSelf {
			n, s = n+8, s[8:]
			continue
		}
		k := 8
		for k < len(s) && !utf8.RuneStart(s[k]) {
			k++
		}
		n, s = n+utf8.RuneCountInString(s[:k]), s[k:]
	}
	return n + utf8.RuneCountInString(s)
}

// ProfileOf computes the reasoning profile of a response text: Steps is the
// number of non-blank lines plus the sentence ends inside them; Tokens is
// EstimateTokens; Hedges counts HedgeWords; SelfConfidence is a confidence
// the text states on a line of its own ("Confidence: 0.8", "... 80%",
// "... 8/10"), nil (missing) when it states none. The whole text counts,
// reasoning blocks included: they were produced, and paid for.
func ProfileOf(text string) Profile {
	work(6 * len(text)) // runes, hedges, lines, steps, the confidence search
	p := Profile{Tokens: EstimateTokens(text), Hedges: countHedges(text)}
	for line := range strings.Lines(text) {
		p.Steps += steps(line)
	}
	if c, ok := selfConfidence(text); ok {
		p.SelfConfidence = &c
	}
	return p
}

// countHedges counts the HedgeWords in text. Words are maximal runs of
// ASCII letters, digits and "_" (regexp's \w); a run glued to a non-ASCII
// letter or digit is part of a longer word and no hedge.
func countHedges(text string) int {
	// buf holds the previous word ending at buf[maxHedge-1], a space at
	// buf[maxHedge], and the current word after it, so that the phrase
	// "previous current" is a slice of buf.
	var buf [2*maxHedge + 1]byte
	buf[maxHedge] = ' '
	n, prevLen := 0, -1 // -1: no previous word to pair with
	for i := 0; i < len(text); {
		if !wordBytes[text[i]] {
			i++
			continue
		}
		start := i
		for i < len(text) && wordBytes[text[i]] {
			i++
		}
		w := text[start:i]
		if len(w) > maxHedge || !hedgeFirst[len(w)][lower(w[0])] && !leadFirst[len(w)][lower(w[0])] || gluedWord(text, start, i) {
			prevLen = -1 // no hedge, in no phrase: the common case, no lookup
			continue
		}
		cur := buf[maxHedge+1 : maxHedge+1+len(w)]
		for k := range len(w) {
			cur[k] = lower(w[k])
		}
		if hedgeFirst[len(w)][cur[0]] {
			if hedgeSet[string(cur)] {
				n++
			}
			if prevLen >= 0 && hedgeSet[string(buf[maxHedge-prevLen:maxHedge+1+len(w)])] {
				n++
			}
		}
		prevLen = -1
		if leadFirst[len(w)][cur[0]] { // it may lead a phrase
			copy(buf[maxHedge-len(w):maxHedge], cur)
			prevLen = len(w)
		}
	}
	return n
}

// gluedWord reports a word text[start:end] glued to a non-ASCII letter or
// digit on either side: part of a longer word, and no hedge.
func gluedWord(text string, start, end int) bool {
	if start > 0 && text[start-1] >= utf8.RuneSelf {
		if r, _ := utf8.DecodeLastRuneInString(text[:start]); isWordRune(r) {
			return true
		}
	}
	if end < len(text) && text[end] >= utf8.RuneSelf {
		if r, _ := utf8.DecodeRuneInString(text[end:]); isWordRune(r) {
			return true
		}
	}
	return false
}

// isWordRune reports a non-ASCII letter or digit (ASCII ones are word bytes
// already counted in the run).
func isWordRune(r rune) bool {
	return r >= utf8.RuneSelf && r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// wordBytes marks the bytes isWordByte reports.
var wordBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = isWordByte(byte(c))
	}
	return t
}()

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// steps counts one step for a line holding a letter or a digit, plus one
// for each sentence end inside it (".", "!" or "?", then white space, then
// more text).
func steps(line string) int {
	line = strings.TrimSpace(line)
	if strings.IndexFunc(line, func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }) < 0 {
		return 0
	}
	n := 1
	for i := 0; i+2 < len(line); i++ {
		if c := line[i]; (c == '.' || c == '!' || c == '?') && (line[i+1] == ' ' || line[i+1] == '\t') {
			n++ // the trimmed line does not end in white space: text follows
			for i+1 < len(line) && (line[i+1] == ' ' || line[i+1] == '\t') {
				i++
			}
		}
	}
	return n
}

// confidenceStart is a line start before which selfConfRe matches
// nothing: a match holds "confidence" (any case), and starts at a line
// start from which only [\s*_#>-] lead to it. So the regexp reads from the
// first "confidence" on, not the whole text, and reads the same matches.
func confidenceStart(text string) int {
	f := -1
	for i := 0; i < len(text); i++ {
		if text[i]|0x20 == 'c' {
			if _, ok := foldPrefix(text, i, "confidence"); ok {
				f = i
				break
			}
		}
	}
	if f < 0 {
		return len(text)
	}
	q := f // the run of [\s*_#>-] before it is text[q:f]
	for q > 0 && confLead(text[q-1]) {
		q--
	}
	if q == 0 {
		return 0
	}
	if k := strings.IndexByte(text[q:f], '\n'); k >= 0 {
		return q + k + 1 // the run's first line start
	}
	return strings.LastIndexByte(text[:f], '\n') + 1 // f's line start (0 on the first)
}

// confLead reports a byte of selfConfRe's [\s*_#>-].
func confLead(c byte) bool {
	return isSpaceRe(c) || c == '*' || c == '_' || c == '#' || c == '>' || c == '-'
}

// selfConfidence returns the last confidence stated in text, scaled to
// [0,1]: a plain number ≤ 1 is a probability, one in (1, 100] a percentage.
func selfConfidence(text string) (float64, bool) {
	if !strings.Contains(text, "onfidence") && !strings.Contains(text, "ONFIDENCE") {
		return 0, false // the regexp is slow; most texts state nothing
	}
	number, unit, ok := lastSelfConf(text[confidenceStart(text):])
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseFloat(number, 64)
	if err != nil {
		return 0, false
	}
	switch scale := strings.ReplaceAll(unit, " ", ""); {
	case scale == "%":
		v /= 100
	case scale == "/10":
		v /= 10
	case scale == "/100":
		v /= 100
	case v > 1:
		v /= 100
	}
	if !(v >= 0 && v <= 1) {
		return 0, false
	}
	return v, true
}
