package answer

// mmlu (ExtractLetter, ExtractLetterIn): a letter alone in the last
// \boxed{}; else the last stated answer — "(B)", "answer is (B)",
// "Answer: **B**", "answer is option B", "(X) B" or "X) B)" (the prompt's
// placeholder, then the letter); else a last line that is an option label
// ("B) Insulin", "**B**"). The last statement wins: models discuss options
// before concluding. Lower-case "(b)" is not read (enumerations look so).
// When no letter is stated at all, an answer given as an option's text
// after the placeholder, or in a closing parenthesis, is matched against
// the question's choices (Choices parses LLM-Debate's template); it counts
// only when exactly one option matches.

import (
	"regexp"
	"strings"
)

var (
	// boxLetterRe finds a standalone letter inside a box's de-LaTeXed text.
	boxLetterRe = regexp.MustCompile(`(?:^|[^A-Za-z])([A-D])(?:[^A-Za-z]|$)`)
	// The stated answers — "(B)", "answer is (B)", "Answer: **B**",
	// "(X) B", "X) A) text" — are found by lastStated (stated.go).
	// lastLineRe reads a last line that is an option label: "B", "B)", "B. text".
	lastLineRe = regexp.MustCompile(`^\(?([A-D])(?:$|[).:][*_]*(?:\s|$))`)
)

// ExtractLetter reads an MMLU answer (A–D) from a response; "" when it
// states none. By priority:
//
//  1. a letter standing alone in the last \boxed{...} that holds one
//     ("\boxed{B}", "\boxed{\text{(B)}}");
//  2. else the last stated answer, whichever form comes last in the text:
//     "(B)", "answer is (B)" / "Answer: **B**" / "answer is option B", or
//     "(X) B" (the prompt's placeholder, then the letter);
//  3. else a last line that is an option label ("B)", "**B.** text");
//  4. else the last of the closing four sentences that declares the answer ("correct answer",
//     "the answer", "best answer", "correct option") or follows the
//     placeholder "(X)", when it names exactly one option ("option D,
//     45,X, stands out as the correct answer"; "(X) The best evidence is
//     B) Radioactive dating"). A sentence naming two options names none.
//
// The last statement wins because the models discuss the options before
// concluding ("(A) is wrong because ...; so the answer is (C)"); the
// prompt asks for the letter at the end. Lower-case "(b)" is not read: it
// is how enumerations are written. Reasoning in <think>...</think> is
// ignored as in ExtractNumber.
func ExtractLetter(text string) string {
	s := answerText(text)
	bs := boxes(s)
	for i := len(bs) - 1; i >= 0; i-- {
		work(len(bs[i]))
		if m := boxLetterRe.FindStringSubmatch(delatex(bs[i])); m != nil {
			return m[1]
		}
	}
	if l := lastStated(s); l != "" {
		return l
	}
	work(len(s)) // the last line
	last := strings.TrimSpace(s)
	if i := strings.LastIndexByte(last, '\n'); i >= 0 {
		last = last[i+1:]
	}
	last = strings.Trim(last, " \t*_#>")
	if m := lastLineRe.FindStringSubmatch(last); m != nil {
		return m[1]
	}
	return concluded(s)
}

// choicesRe reads the options of an MMLU prompt in LLM-Debate's template:
// "...?: A) x, B) y, C) z, D) w Answer in English only. Explain your
// answer, ...". D's text ends at the template's next sentence.
var choicesRe = regexp.MustCompile(`(?s):\s+A\) (.*?), B\) (.*?), C\) (.*?), D\) (.*?)(?:\s+Answer in English only\.|\s+Explain your answer|\s*$)`)

// Choices returns the four option texts (A–D) of an MMLU question written
// in LLM-Debate's template, or nil when the question is not in it.
func Choices(question string) []string {
	question = tail(question, MaxQuestionBytes)
	work(len(question))
	ms := choicesRe.FindAllStringSubmatch(question, -1)
	if len(ms) == 0 {
		return nil
	}
	return ms[len(ms)-1][1:5]
}

// ExtractLetterIn is ExtractLetter with one more rule, used only when the
// response states no letter at all: the text it gives as the answer is
// compared with the question's choices (Choices). Two places count as
// giving an answer: what follows the last "(X)" placeholder on its line
// ("(X) 16 hours will be needed"), which may go on after the option's text
// past a space or punctuation; and a parenthesised group that ends the
// response ("... so it is (45,X)."), which must equal the option's text.
// Case, spacing and surrounding punctuation are ignored; the longest
// matching option wins, and two of the same length name none. Models that
// ignore the letter format often answer this way.
func ExtractLetterIn(text string, choices []string) string {
	if l := ExtractLetter(text); l != "" || len(choices) != 4 {
		return l
	}
	s := answerText(text)
	if i := lastPlaceholder(s); i >= 0 {
		line := s[i:]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		work(len(line))
		if l := matchChoice(fold(line), choices, true); l != "" {
			return l
		}
	}
	work(len(s))
	if g, ok := endParen(s); ok {
		return matchChoice(fold(g), choices, false)
	}
	return ""
}

// endParen returns the group of endParenRe, \(([^()]+)\)[\s.!*_]*$, read
// from the end of s: the match ends the text, so its ")" is the last one,
// with only [\s.!*_] after it, and its "(" the last before that.
func endParen(s string) (string, bool) {
	e := strings.LastIndexByte(s, ')')
	if e < 0 {
		return "", false
	}
	for i := e + 1; i < len(s); i++ {
		if c := s[i]; !isSpaceRe(c) && c != '.' && c != '!' && c != '*' && c != '_' {
			return "", false
		}
	}
	k := strings.LastIndexByte(s[:e], '(')
	if k < 0 || k+1 == e || strings.IndexByte(s[k+1:e], ')') >= 0 {
		return "", false
	}
	return s[k+1 : e], true
}

// matchChoice returns the letter of the longest choice that the folded
// answer text c equals, or, with prefix, begins with before a space or a
// punctuation mark.
func matchChoice(c string, choices []string, prefix bool) string {
	best, bestLen, tie := -1, 0, false
	for i, ch := range choices {
		o := fold(ch)
		if o == "" || !strings.HasPrefix(c, o) {
			continue
		}
		if rest := c[len(o):]; rest != "" && (!prefix || !strings.ContainsAny(rest[:1], " .,;:!)")) {
			continue
		}
		switch {
		case len(o) > bestLen:
			best, bestLen, tie = i, len(o), false
		case len(o) == bestLen:
			tie = true
		}
	}
	if best < 0 || tie {
		return ""
	}
	return string(rune('A' + best))
}

// fold lower-cases s, collapses white space and trims the punctuation and
// markup around it.
func fold(s string) string {
	s = strings.Join(strings.Fields(strings.ToLower(s)), " ")
	return strings.Trim(s, " *_.,;:!?\"'`")
}

// lastPlaceholder returns the index just past the last placeholder of the
// answer form, "(X)" or a bare "X)" at the start or after white space, ":"
// or "*" — the matches of `\([Xx]\)|(?:^|[\s:*])[Xx]\)`, found left to right
// in one pass (a regexp would clear a text-sized bitmap per match) — or -1.
func lastPlaceholder(s string) int {
	work(len(s))
	xParen := func(i int) bool { return i+1 < len(s) && (s[i] == 'X' || s[i] == 'x') && s[i+1] == ')' }
	last := -1
	for p := 0; p < len(s); {
		switch {
		case s[p] == '(' && xParen(p+1):
			p += 3
		case p == 0 && xParen(0):
			p = 2
		case isSpaceRe(s[p]) || s[p] == ':' || s[p] == '*':
			if !xParen(p + 1) {
				p++
				continue
			}
			p += 3
		default:
			p++
			continue
		}
		last = p
	}
	return last
}

var (
	// declareRe marks a sentence that declares the answer.
	declareRe = regexp.MustCompile(`(?i)\b(?:correct answer|the answer|best answer|correct option|right answer)\b`)
	// optionRefRe finds a reference to an option: "option D", "D)".
	optionRefRe = regexp.MustCompile(`\b(?:[Oo]ption|[Cc]hoice)\s+\(?([A-D])\b|(?:^|[\s(])([A-D])\)`)
	// Sentences end at a period, "!" or "?" before white space, or at a
	// line break: lastSentences.
)

// closing is how many final sentences rule 4 looks at.
const closing = 4

// concluded reads rule 4 of ExtractLetter: the last declaring sentence (or
// the text after the last "(X)" on its line) that names exactly one
// option; "" when there is none or it names several.
func concluded(s string) string {
	if i := lastPlaceholder(s); i >= 0 {
		line := s[i:]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		if l := oneOption(line); l != "" {
			return l
		}
	}
	// Only the closing sentences: earlier ones may report a peer's answer.
	var sents [closing]string
	for _, sent := range lastSentences(strings.TrimSpace(s), sents[:0]) {
		work(len(sent))
		if (containsFold(sent, "answer") || containsFold(sent, "option")) && declareRe.MatchString(sent) {
			if l := oneOption(sent); l != "" {
				return l
			}
		}
	}
	return ""
}

// lastSentences appends to dst (up to its capacity) the last pieces of
// sentenceEndRe.Split(s, -1), last first, scanning s from its end: only
// the closing sentences are read, not the whole text. The separators do
// not depend on the direction of the scan: a run of white space after
// ".", "!" or "?" is one with the mark; any other run holds one per run of
// line breaks in it.
func lastSentences(s string, dst []string) []string {
	end := len(s) // the end of the piece being collected
	i := len(s) - 1
	for i >= 0 && len(dst) < cap(dst) {
		if !isSpaceRe(s[i]) {
			i--
			continue
		}
		hi := i + 1 // the run of white space is s[lo:hi]
		for i >= 0 && isSpaceRe(s[i]) {
			i--
		}
		lo := i + 1
		if lo > 0 && (s[lo-1] == '.' || s[lo-1] == '!' || s[lo-1] == '?') {
			dst = append(dst, s[hi:end])
			end = lo - 1
			i = lo - 2
			continue
		}
		for j := hi - 1; j >= lo && len(dst) < cap(dst); j-- { // the runs of line breaks, last first
			if s[j] != '\n' {
				continue
			}
			e := j + 1
			for j >= lo && s[j] == '\n' {
				j--
			}
			dst = append(dst, s[e:end])
			end = j + 1
		}
	}
	if i < 0 && len(dst) < cap(dst) {
		dst = append(dst, s[:end])
	}
	return dst
}

// containsFold reports whether s holds w (lower-case ASCII) as (?i)
// matches it: every declareRe phrase holds "answer" or "option", so a
// sentence with neither is passed over without the regexp.
func containsFold(s, w string) bool {
	for i := 0; i < len(s); i++ {
		if s[i]|0x20 == w[0] {
			if _, ok := foldPrefix(s, i, w); ok {
				return true
			}
		}
	}
	return false
}

// enumRe finds letters listed together ("(A, B, & C)", "A or B"): a
// sentence that lists options names none of them.
var enumRe = regexp.MustCompile(`\b[A-D]\s*(?:,|&|\band\b|\bor\b)\s*(?:(?i:option)\s+)?\(?[A-D]\b`)

// oneOption returns the option s refers to when it refers to exactly one
// and lists none.
func oneOption(s string) string {
	work(2 * len(s))
	if enumRe.MatchString(s) {
		return ""
	}
	l := ""
	for _, m := range optionRefRe.FindAllStringSubmatch(s, -1) {
		g := m[1] + m[2]
		if l != "" && g != l {
			return ""
		}
		l = g
	}
	return l
}
