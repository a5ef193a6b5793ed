package answer

import (
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// fuzzQuestion is an MMLU question in LLM-Debate's template, so that the
// option-text rule of ExtractLetterIn is fuzzed too.
const fuzzQuestion = "Which one? : A) 16 hours, B) 45,X, C) Insulin, D) the sun Answer in English only."

// FuzzRead reads any text by every kind and checks that reading does not
// panic, that its counted work stays within workPerByte·len + workConst,
// and — for texts the caps do not touch — that it reads as the reader it
// replaced did (the ref-prefixed copy).
func FuzzRead(f *testing.F) {
	for _, a := range adversarial {
		f.Add(a.text(48))
	}
	for _, s := range []string{
		"3 * 12 = 36, so \\boxed{36}", "The answer is (B).", "#### 1 000", "\\boxed{\\frac{1}{2}}",
		"<think>2+2=5</think> The answer is $\\frac{-1}{2}$.", "(X) 16 hours will be needed",
		"so it is (45,X).", "Confidence: 80%\nB) Insulin", "-2^2 = -4, 2^10 = 1024", "7/2 = 3 boxes",
		"\\boxed{1}\\boxed{\\text{(C)}}", "the value of $n$ is $11$.", "is 12 units.", "1/3 + 1,000.50",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, k := range Kinds {
			opts := Options{Question: fuzzQuestion, Critic: true}
			var n int
			workMeter = &n
			got := Read(k, text, opts)
			workMeter = nil
			if n > workPerByte*len(text)+workConst {
				t.Fatalf("%s: work %d for %d bytes > %d·len + %d", k, n, len(text), workPerByte, workConst)
			}
			if !withinCaps(text) {
				continue
			}
			want := refRead(refKind(k), text, refOptions{Question: fuzzQuestion, refCritic: true})
			if !sameResult(got, want) {
				t.Fatalf("%s: got %s, want %s (the reader before the caps)", k, showResult(got), showResult(want))
			}
		}
	})
}

// withinCaps reports a text no cap can change the reading of: shorter than
// a box may be read (and so than every window), with at most MaxBoxes
// boxes, and with too few digits for a fraction to span MaxQuotientBytes
// or for the critic to meet a number or value past its bounds.
func withinCaps(text string) bool {
	if len(text) > MaxBoxBytes || strings.Count(text, `\boxed`)+strings.Count(text, `\fbox`) > MaxBoxes {
		return false
	}
	digits := 0
	for i := 0; i < len(text); i++ {
		if isDigit(text[i]) {
			digits++
		}
	}
	return digits <= 20
}

// FuzzScanners holds the hand-written scans to the regular expressions
// they replace, on any text.
func FuzzScanners(f *testing.F) {
	for _, s := range []string{"(X) a", "X) b", " x) c\n:X)*x)(x)", "*X)X)", `\frac{1}{2} \dfrac 3 4 \tfrac{a}{{b}}`,
		`\text{apples} \textbf{x} \textbf {y} \mbox{} \operatorname{lcm}`, `\\\frac12 \frac{}{}`, "1,000,0000.5/.5"} {
		f.Add(s)
	}
	placeholder := regexp.MustCompile(`\([Xx]\)|(?:^|[\s:*])[Xx]\)`)
	frac := regexp.MustCompile(`\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}`)
	fracShort := regexp.MustCompile(`\\[dt]?frac\s*(\d)\s*(\d)`)
	textCmd := regexp.MustCompile(`\\(?:text|textbf|textit|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]*)\}`)
	command := regexp.MustCompile(`\\[A-Za-z]+`)
	number := regexp.MustCompile(`\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+`)
	for _, s := range statedSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkStated(t, s)
		checkSentences(t, s)
		checkTails(t, s)
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
		want := -1
		if ms := placeholder.FindAllStringIndex(s, -1); len(ms) > 0 {
			want = ms[len(ms)-1][1]
		}
		if got := lastPlaceholder(s); got != want {
			t.Errorf("lastPlaceholder(%q) = %d, want %d", s, got, want)
		}
		check := func(name, got, want string) {
			if got != want {
				t.Errorf("%s(%q) = %q, want %q", name, s, got, want)
			}
		}
		check("replaceFracs", replaceFracs(s, writeQuotient), frac.ReplaceAllString(s, "(($1)/($2))"))
		check("replaceShortFracs", replaceShortFracs(s), fracShort.ReplaceAllString(s, "(($1)/($2))"))
		check("replaceTextCommands", replaceTextCommands(s), textCmd.ReplaceAllString(s, " $1 "))
		check("replaceCommands", replaceCommands(s), command.ReplaceAllString(s, " "))
		var ends []int
		for p := 0; p < len(s); {
			if e := numberEnd(s, p); e >= 0 {
				ends = append(ends, p, e)
				p = e
			} else {
				p++
			}
		}
		var want2 []int
		for _, m := range number.FindAllStringIndex(s, -1) {
			want2 = append(want2, m...)
		}
		if !slices.Equal(ends, want2) {
			t.Errorf("numbers of %q: %v, want %v", s, ends, want2)
		}
	})
}

// statedRe is the expression lastStated scans for (stated.go).
var statedRe = regexp.MustCompile(
	`\(([A-D])\)` +
		`|(?i:answer)(?:\s+(?i:is|would be|should be|remains))?[*_]*\s*[:：]?\s*[*_]*\s*(?:(?i:option)\s+)?\(?([A-D])\b` +
		`|\([Xx]\)\s*[*_:]*\s*(?:(?i:option)\s+)?\(?([A-D])\b` +
		`|(?:^|[\s:*])[Xx]\)\s*[*_:]*\s*(?:(?i:option)\s+)?\(?([A-D])(?:[).:]|\s*$)`)

// sentenceEndRe is the split lastSentences reads from the end.
var sentenceEndRe = regexp.MustCompile(`[.!?]\s+|\n+`)

// statedSeeds exercise every alternative of statedRe and its folds.
var statedSeeds = []string{
	"(B)", "answer is (B)", "Answer: **B**", "ANSWER WOULD BE option C.", "anſwer ſhould be D", "answer remains\t(A)x",
	"answer is:B", "answer：  __ B", "the answer is: $x$\nanswer  IS \\frac12", "answer\nis\n\n", "so x is $1$ and y is $2$.", "a_is 3 cm .", "so (45,X).", "(a)(b) ._", "(a)b)", "()", "x (\xff) \n", "(a)(b)c",
	"x\n  * Confidence: 0.9\n> confidence = 8/10", "Confidence: 5\nConfidence: 6 / 100x", "confidence score ** = **\n 7.5/ 10\nconfidence: 3%", "Confidence:\n\nConfidence: 1/100", "ConfidenceLevel: 3", "confidence ſcore: 4/10_", "-- \nCONFIDENCE: 5", "a confidence\n\tconfidence level: 70 %", "The correct ANSWER is b", "best option", "answer is is B", "(X) **: option (C) and", "(x)B", "X) A) text", " x) D  ", ":X)C.", "*X) option  B:",
	"answer isB", "answer is option", "answer optionB", "the answer (A) or answer B_", "X)A", "X) A  \n", "answer\n\nis\n*\n: _ D!",
	"Answer: **B**. So the answer is (C).\n\nX) D", "answer  would  be B", "answer would beB", "answer: option\n(D)",
}

// checkStated holds lastStated and the matches statedAt finds to statedRe.
func checkStated(t *testing.T, s string) {
	t.Helper()
	var got [][3]int
	for p := 0; p < len(s); {
		if end, l, ok := statedAt(s, p); ok {
			got = append(got, [3]int{p, end, int(l)})
			p = end
			continue
		}
		p++
	}
	var want [][3]int
	for _, m := range statedRe.FindAllStringSubmatchIndex(s, -1) {
		l := 0
		for g := 2; g < len(m); g += 2 {
			if m[g] >= 0 {
				l = int(s[m[g]])
			}
		}
		want = append(want, [3]int{m[0], m[1], l})
	}
	if !slices.Equal(got, want) {
		t.Errorf("stated answers of %q: %v, want %v", s, got, want)
	}
	wantLast := ""
	if len(want) > 0 {
		wantLast = string(rune(want[len(want)-1][2]))
	}
	if l := lastStated(s); l != wantLast {
		t.Errorf("lastStated(%q) = %q, want %q", s, l, wantLast)
	}
}

// checkSentences holds lastSentences to the last pieces of
// sentenceEndRe.Split, for every number of pieces asked.
func checkSentences(t *testing.T, s string) {
	t.Helper()
	all := sentenceEndRe.Split(s, -1)
	for k := 1; k <= 6; k++ {
		got := lastSentences(s, make([]string, 0, k))
		var want []string
		for i := len(all) - 1; i >= max(0, len(all)-k); i-- {
			want = append(want, all[i])
		}
		if !slices.Equal(got, want) {
			t.Errorf("last %d sentences of %q: %q, want %q", k, s, got, want)
		}
	}
}

func TestStatedSeeds(t *testing.T) {
	for _, s := range append(statedSeeds, "a. b\n\nc! \n d", ". x", "", "\n", "a \n \n b", "x.\n", "a\n. b?  c", "no end") {
		checkStated(t, s)
		checkSentences(t, s)
		checkTails(t, s)
		if got, want := runeCount(s), utf8.RuneCountInString(s); got != want {
			t.Errorf("runeCount(%q) = %d, want %d", s, got, want)
		}
	}
}

// The regexps the scanners stand in for, or read a tail for.
var (
	answerIsRe = regexp.MustCompile(`(?i)answer\s+is\s*:?\s*([^\n]*)`)
	endParenRe = regexp.MustCompile(`\(([^()]+)\)[\s.!*_]*$`)
	selfConfRe = regexp.MustCompile(`(?im)^[\s*_#>-]*confidence(?:\s+(?:level|score))?[*_]*\s*[:=][*_]*\s*[*_]*\s*(\d+(?:\.\d+)?)\s*(%|/\s*10\b|/\s*100\b)?`)
)

// checkTails holds lastAnswerIs to answerIsRe, the end-of-text regexps to
// their reading of the tails they are given, selfConfRe to its reading from
// confidenceStart, and the "answer"/"option" filter to declareRe.
func checkTails(t *testing.T, s string) {
	t.Helper()
	want, wantOK := "", false
	if ms := answerIsRe.FindAllStringSubmatch(s, -1); len(ms) > 0 {
		want, wantOK = ms[len(ms)-1][1], true
	}
	if got, ok := lastAnswerIs(s); got != want || ok != wantOK {
		t.Errorf("lastAnswerIs(%q) = %q %v, want %q %v", s, got, ok, want, wantOK)
	}
	for _, c := range []struct {
		re   *regexp.Regexp
		tail func(string) string
	}{{endIsMathRe, endIsMathTail}, {endIsNumberRe, endIsNumberTail}} {
		if got, want := c.re.FindStringSubmatch(c.tail(s)), c.re.FindStringSubmatch(s); !slices.Equal(got, want) {
			t.Errorf("%v on the tail of %q: %q, want %q", c.re, s, got, want)
		}
	}
	all := selfConfRe.FindAllStringSubmatchIndex(s, -1)
	if got, want := selfConfRe.FindAllStringSubmatch(s[confidenceStart(s):], -1), selfConfRe.FindAllStringSubmatch(s, -1); !reflect.DeepEqual(got, want) {
		t.Errorf("selfConfRe from confidenceStart of %q: %q, want %q", s, got, want)
	}
	var gotAll [][]int
	for p := 0; p < len(s); p++ {
		if p > 0 && s[p-1] != '\n' {
			continue
		}
		if m, ok := selfConfAt(s, p); ok && (len(gotAll) == 0 || p >= gotAll[len(gotAll)-1][1]) {
			gotAll = append(gotAll, []int{p, m.end})
		}
	}
	var wantAll [][]int
	for _, m := range all {
		wantAll = append(wantAll, m[:2])
	}
	if !reflect.DeepEqual(gotAll, wantAll) {
		t.Errorf("confidence matches of %q: %v, want %v", s, gotAll, wantAll)
	}
	n, u, ok := lastSelfConf(s)
	if len(all) > 0 {
		m := all[len(all)-1]
		wn, wu := s[m[2]:m[3]], ""
		if m[4] >= 0 {
			wu = s[m[4]:m[5]]
		}
		if !ok || n != wn || u != wu {
			t.Errorf("lastSelfConf(%q) = %q %q %v, want %q %q", s, n, u, ok, wn, wu)
		}
	} else if ok {
		t.Errorf("lastSelfConf(%q) = %q %q, want none", s, n, u)
	}
	want, wantOK = "", false
	if m := endParenRe.FindStringSubmatch(s); m != nil {
		want, wantOK = m[1], true
	}
	if got, ok := endParen(s); got != want || ok != wantOK {
		t.Errorf("endParen(%q) = %q %v, want %q %v", s, got, ok, want, wantOK)
	}
	if declareRe.MatchString(s) && !containsFold(s, "answer") && !containsFold(s, "option") {
		t.Errorf("%q declares with neither answer nor option", s)
	}
}
