package answer

import (
	"regexp"
	"strings"
	"testing"
)

func TestEstimateTokens(t *testing.T) {
	cases := []struct {
		s    string
		want int
	}{{"", 0}, {"abcd", 1}, {"abcde", 2}, {"abcdefgh", 2}, {"ééé", 1}}
	for _, c := range cases {
		if got := EstimateTokens(c.s); got != c.want {
			t.Errorf("EstimateTokens(%q) = %d, want %d", c.s, got, c.want)
		}
	}
}

func TestProfileOf(t *testing.T) {
	text := "Step one. Step two!\n\n3 + 4 = 7\n```\nMaybe it is 7; I think so. Perhaps. It is unlikely to be mighty 8."
	p := ProfileOf(text)
	// Lines: "Step one. Step two!" (2), "3 + 4 = 7" (1), "```" (0), last line (3 sentences... see below).
	// Last line: "Maybe it is 7; I think so." | "Perhaps." | "It is unlikely ..." → 3.
	if p.Steps != 6 {
		t.Errorf("Steps = %d, want 6", p.Steps)
	}
	if p.Hedges != 4 { // maybe, i think, perhaps, unlikely; not "mighty"
		t.Errorf("Hedges = %d, want 4", p.Hedges)
	}
	if p.Tokens != EstimateTokens(text) {
		t.Errorf("Tokens = %d, want %d", p.Tokens, EstimateTokens(text))
	}
	if p.SelfConfidence != nil {
		t.Errorf("SelfConfidence = %v, want missing", *p.SelfConfidence)
	}
}

func TestSelfConfidence(t *testing.T) {
	cases := []struct {
		text string
		want float64 // < 0: missing
	}{
		{"The answer is 5.\nConfidence: 0.8", 0.8},
		{"**Confidence:** 80%", 0.8},
		{"Confidence level: 7/10", 0.7},
		{"confidence = 90", 0.9},
		{"Confidence: 0.2\nConfidence: 0.6", 0.6},
		{"I say this with 95% confidence", -1},
		{"Confidence: 150%", -1},
		{"Confidence: high", -1},
		{"no confidence stated", -1},
	}
	for _, c := range cases {
		p := ProfileOf(c.text)
		switch {
		case c.want < 0 && p.SelfConfidence != nil:
			t.Errorf("%q: SelfConfidence = %v, want missing", c.text, *p.SelfConfidence)
		case c.want >= 0 && p.SelfConfidence == nil:
			t.Errorf("%q: SelfConfidence missing, want %v", c.text, c.want)
		case c.want >= 0 && *p.SelfConfidence != c.want:
			t.Errorf("%q: SelfConfidence = %v, want %v", c.text, *p.SelfConfidence, c.want)
		}
	}
}

// refHedges is the plain definition countHedges implements, for ASCII
// text: single words matched whole, phrases with any non-word run between
// their words.
func refHedges(s string) int {
	var words, phrases []string
	for _, w := range HedgeWords {
		if ws := strings.Fields(w); len(ws) == 1 {
			words = append(words, w)
		} else {
			phrases = append(phrases, strings.Join(ws, `\W+`))
		}
	}
	wordRe := regexp.MustCompile(`(?i)\b(?:` + strings.Join(words, "|") + `)\b`)
	phraseRe := regexp.MustCompile(`(?i)\b(?:` + strings.Join(phrases, "|") + `)\b`)
	return len(wordRe.FindAllStringIndex(s, -1)) + len(phraseRe.FindAllStringIndex(s, -1))
}

func TestCountHedges(t *testing.T) {
	cases := []struct {
		text string
		want int
	}{
		{"Maybe. MAYBE maybe", 3},
		{"I think; i  think; I,think", 3},
		{"not sure, could be, i guess, I believe", 4},
		{"mighty seemingly unlikely", 1},
		{"hmm... wait, alternatively", 3},
		{"i i think", 1},
		{"", 0},
		// Non-ASCII: curly quotes separate words, accented letters join them.
		{"“perhaps” it is", 1},
		{"éperhaps perhapsé perhaps_x perhaps", 1},
	}
	for _, c := range cases {
		if got := countHedges(c.text); got != c.want {
			t.Errorf("countHedges(%q) = %d, want %d", c.text, got, c.want)
		}
		if ascii(c.text) {
			if got := refHedges(c.text); got != c.want {
				t.Errorf("refHedges(%q) = %d, want %d", c.text, got, c.want)
			}
		}
	}
}

func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// FuzzCountHedges: on ASCII text the scanner and the regexps agree.
func FuzzCountHedges(f *testing.F) {
	f.Add("Maybe I think it could be 5, perhaps.")
	f.Add("not   sure; i__think I-think")
	f.Fuzz(func(t *testing.T, s string) {
		if !ascii(s) || len(s) > 4096 {
			return
		}
		if got, want := countHedges(s), refHedges(s); got != want {
			t.Errorf("countHedges(%q) = %d, regexps %d", s, got, want)
		}
	})
}
