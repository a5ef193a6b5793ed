// Code kept verbatim from the answer reader before its caps (commit dad23c3),
// every top-level name prefixed "ref": the oracle TestReadSharedUnchanged and
// FuzzRead hold Read to. It is quadratic on hostile text; tests only.

package answer

import ()

// Options give Read what it needs beyond the text. The zero value reads
// by the text alone.
type refOptions struct {
	// Question is the question the text answers. For MMLU its options
	// (Choices) let an answer given as an option's text, with no letter,
	// be read.
	Question string
	// Choices are the MMLU option texts A–D; nil means Choices(Question).
	refChoices []string
	// Critic also runs the critic (Result.Critic), which costs about half
	// as much again as the rest of Read: readers that never use its
	// confidence leave it off.
	refCritic bool
}

// Result is what Read finds in a text.
type refResult struct {
	// Answer is the normalised answer, so that equal answers are equal
	// strings; "" when the text holds no answer that can be read without
	// guessing.
	Answer string
	// Profile is the reasoning profile of the whole text (ProfileOf).
	Profile Profile
	// Critic is the critic's confidence in Answer read from the text
	// (Critic); nil when the text gives it nothing to check, or when
	// Options.Critic is off.
	refCritic *float64
}

// Read reads a model's text: the answer by the rules of kind, and the
// reasoning profile. It is the one entry point every path uses — the
// transcript importer, the replay, the live backend and the server — so
// that a policy sees the same features in training and in use.
func refRead(kind refKind, text string, opts refOptions) refResult {
	r := refResult{Answer: refExtract(kind, text, opts), Profile: refProfileOf(text)}
	if !opts.refCritic {
		return r
	}
	if c, ok := refCritic(kind, text); ok {
		r.refCritic = &c
	}
	return r
}

// Extract reads only the answer of Read.
func refExtract(kind refKind, text string, opts refOptions) string {
	switch kind {
	case refGSM8K:
		return refExtractNumber(text)
	case refMMLU:
		choices := opts.refChoices
		if choices == nil {
			choices = refChoices(opts.Question)
		}
		return refExtractLetterIn(text, choices)
	case refArithmetic:
		return refExtractInteger(text)
	case refMath:
		return refExtractMath(text)
	}
	return ""
}
