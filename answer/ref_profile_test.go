// Code kept verbatim from the answer reader before its caps (commit dad23c3),
// every top-level name prefixed "ref": the oracle TestReadSharedUnchanged and
// FuzzRead hold Read to. It is quadratic on hostile text; tests only.

package answer

import (
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// HedgeWords are the words and two-word phrases counted as hedges,
// matched whole and case-insensitively ("wait" and "hmm" are there because
// reasoning models mark second thoughts with them). A phrase matches two
// adjacent words, whatever separates them.
var refHedgeWords = []string{
	"maybe", "perhaps", "possibly", "probably", "might", "likely", "unlikely",
	"seems", "seem", "appears", "assume", "assuming", "approximately",
	"roughly", "uncertain", "unsure", "not sure", "i think", "i believe",
	"i guess", "could be", "wait", "hmm", "alternatively",
}

// hedgeSet holds HedgeWords, phrases with their words joined by one space.
var refhedgeSet = func() map[string]bool {
	m := make(map[string]bool, len(refHedgeWords))
	for _, w := range refHedgeWords {
		m[w] = true
	}
	return m
}()

// maxHedge bounds the words worth looking up: longer ones are no hedge.
const refmaxHedge = 16

// selfConfRe reads a stated confidence on a line of its own:
// "Confidence: 0.8", "**Confidence:** 80%", "confidence = 8/10".
var refselfConfRe = regexp.MustCompile(`(?im)^[\s*_#>-]*confidence(?:\s+(?:level|score))?[*_]*\s*[:=][*_]*\s*[*_]*\s*(\d+(?:\.\d+)?)\s*(%|/\s*10\b|/\s*100\b)?`)

// EstimateTokens estimates the tokens of a text as ⌈runes/4⌉: the
// transcripts record no token counts, and about four characters per token
// is the usual rate of English under BPE tokenizers. It is an estimate for
// costs and profiles, not a count.
func refEstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// ProfileOf computes the reasoning profile of a response text: Steps is the
// number of non-blank lines plus the sentence ends inside them; Tokens is
// EstimateTokens; Hedges counts HedgeWords; SelfConfidence is a confidence
// the text states on a line of its own ("Confidence: 0.8", "... 80%",
// "... 8/10"), nil (missing) when it states none. The whole text counts,
// reasoning blocks included: they were produced, and paid for.
func refProfileOf(text string) Profile {
	p := Profile{Tokens: refEstimateTokens(text), Hedges: refcountHedges(text)}
	for line := range strings.Lines(text) {
		p.Steps += refsteps(line)
	}
	if c, ok := refselfConfidence(text); ok {
		p.SelfConfidence = &c
	}
	return p
}

// countHedges counts the HedgeWords in text. Words are maximal runs of
// ASCII letters, digits and "_" (regexp's \w); a run glued to a non-ASCII
// letter or digit is part of a longer word and no hedge.
func refcountHedges(text string) int {
	// buf holds the previous word ending at buf[maxHedge-1], a space at
	// buf[maxHedge], and the current word after it, so that the phrase
	// "previous current" is a slice of buf.
	var buf [2*refmaxHedge + 1]byte
	buf[refmaxHedge] = ' '
	n, prevLen := 0, -1 // -1: no previous word to pair with
	for i := 0; i < len(text); {
		if !refisWordByte(text[i]) {
			i++
			continue
		}
		start := i
		for i < len(text) && refisWordByte(text[i]) {
			i++
		}
		w := text[start:i]
		before, _ := utf8.DecodeLastRuneInString(text[:start])
		after, _ := utf8.DecodeRuneInString(text[i:])
		if len(w) > refmaxHedge || refisWordRune(before) || refisWordRune(after) {
			prevLen = -1
			continue
		}
		cur := buf[refmaxHedge+1 : refmaxHedge+1+len(w)]
		for k := range len(w) {
			cur[k] = reflower(w[k])
		}
		if refhedgeSet[string(cur)] {
			n++
		}
		if prevLen >= 0 && refhedgeSet[string(buf[refmaxHedge-prevLen:refmaxHedge+1+len(w)])] {
			n++
		}
		copy(buf[refmaxHedge-len(w):refmaxHedge], cur)
		prevLen = len(w)
	}
	return n
}

// isWordRune reports a non-ASCII letter or digit (ASCII ones are word bytes
// already counted in the run).
func refisWordRune(r rune) bool {
	return r >= utf8.RuneSelf && r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

func refisWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

func reflower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// steps counts one step for a line holding a letter or a digit, plus one
// for each sentence end inside it (".", "!" or "?", then white space, then
// more text).
func refsteps(line string) int {
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

// selfConfidence returns the last confidence stated in text, scaled to
// [0,1]: a plain number ≤ 1 is a probability, one in (1, 100] a percentage.
func refselfConfidence(text string) (float64, bool) {
	if !strings.Contains(text, "onfidence") && !strings.Contains(text, "ONFIDENCE") {
		return 0, false // the regexp is slow; most texts state nothing
	}
	ms := refselfConfRe.FindAllStringSubmatch(text, -1)
	if len(ms) == 0 {
		return 0, false
	}
	m := ms[len(ms)-1]
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	switch scale := strings.ReplaceAll(m[2], " ", ""); {
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
