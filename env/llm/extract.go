package llm

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mpdf/mpdf/answer"
)

// Extractor reads the normalised answer out of a model's text for a task of
// the given kind; "" when it finds none. Options.Extract overrides the
// answer package, which every path (import, replay, live, serve) shares by
// default; an override makes live answers differ from imported ones.
type Extractor func(kind answer.Kind, text string) string

var thinkBlock = regexp.MustCompile(`(?is)<think>.*?</think>`)

// StripThinking removes the <think>…</think> blocks reasoning models write
// before their answer, and an unclosed <think> with all that follows it
// (a completion cut off while thinking has no answer). It shapes what the
// agent is shown again (history, judge); answers and profiles are read by
// the answer package, from the whole text.
func StripThinking(text string) string {
	text = thinkBlock.ReplaceAllString(text, "")
	if i := strings.Index(strings.ToLower(text), "<think>"); i >= 0 {
		text = text[:i]
	}
	return strings.TrimSpace(text)
}

// normalizeKind reads a task kind by answer.ParseKind's rules (any case;
// "gsm8k" or "gsm").
func normalizeKind(kind answer.Kind) (answer.Kind, error) {
	k, err := answer.ParseKind(string(kind))
	if err != nil {
		return "", fmt.Errorf("%s is not a task kind (want %s; gsm is gsm8k)", quote([]byte(kind)), strings.Join(Kinds, ", "))
	}
	return k, nil
}

// NormalizeGold writes a task's gold answer in the form answers are read
// in (answer.Gold): for gsm the number of a GSM8K reference solution's
// "#### N", for mmlu the letter, for arithmetic the integer, for math the
// normalised LaTeX (answer.NormalizeMath: "\dfrac12" is "0.5"). A gold that rule cannot read is trimmed
// and kept (it then matches no answer: the episode earns no reward for
// being right, rather than a wrong one).
func NormalizeGold(kind answer.Kind, gold string) string {
	if g := answer.Gold(kind, gold); g != "" {
		return g
	}
	return strings.TrimSpace(gold)
}
