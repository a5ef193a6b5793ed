package answer

// Reasoning inside <think>...</think> is skipped for answers; a text cut
// off inside an unclosed <think> has no answer.

import "strings"

// Options give Read what it needs beyond the text. The zero value reads
// by the text alone.
type Options struct {
	// Question is the question the text answers. For MMLU its options
	// (Choices) let an answer given as an option's text, with no letter,
	// be read.
	Question string
	// Choices are the MMLU option texts A–D; nil means Choices(Question).
	Choices []string
	// Critic also runs the critic (Result.Critic), which costs about twice
	// as much as the rest of Read (BenchmarkReadShared): readers that never
	// use its confidence leave it off.
	Critic bool
}

// Result is what Read finds in a text.
type Result struct {
	// Answer is the normalised answer, so that equal answers are equal
	// strings; "" when the text holds no answer that can be read without
	// guessing.
	Answer string
	// Profile is the reasoning profile of the whole text (ProfileOf).
	Profile Profile
	// Critic is the critic's confidence in Answer read from the text
	// (Critic); nil when the text gives it nothing to check, or when
	// Options.Critic is off.
	Critic *float64
}

// Read reads a model's text: the answer by the rules of kind, and the
// reasoning profile. It is the one entry point every path uses — the
// transcript importer, the replay, the live backend and the server — so
// that a policy sees the same features in training and in use.
func Read(kind Kind, text string, opts Options) Result {
	r := Result{Answer: Extract(kind, text, opts), Profile: ProfileOf(text)}
	if !opts.Critic {
		return r
	}
	if c, ok := Critic(kind, text); ok {
		r.Critic = &c
	}
	return r
}

// Extract reads only the answer of Read.
func Extract(kind Kind, text string, opts Options) string {
	switch kind {
	case GSM8K:
		return ExtractNumber(text)
	case MMLU:
		choices := opts.Choices
		if choices == nil {
			choices = Choices(opts.Question)
		}
		return ExtractLetterIn(text, choices)
	case Arithmetic:
		return ExtractInteger(text)
	case Math:
		return ExtractMath(text)
	}
	return ""
}

// Gold reads a reference answer by the rules of kind: for GSM8K the
// reference solution's "#### N" (any of ExtractNumber's rules), for MMLU a
// bare letter or anything ExtractLetter reads, for arithmetic an integer,
// for MATH the LaTeX answer normalised like an extracted one (a gold that
// is a bare expression, not a sentence).
func Gold(kind Kind, gold string) string {
	switch kind {
	case GSM8K:
		return ExtractNumber(gold)
	case MMLU:
		g := strings.Trim(strings.TrimSpace(gold), "().")
		if len(g) == 1 && strings.ContainsAny(strings.ToUpper(g), "ABCD") {
			return strings.ToUpper(g)
		}
		return ExtractLetter(gold)
	case Arithmetic:
		return ExtractInteger(gold)
	case Math:
		if len(boxes(gold)) > 0 || strings.Contains(strings.ToLower(gold), "answer is") {
			return ExtractMath(gold)
		}
		return NormalizeMath(gold)
	}
	return ""
}
