// Package answer reads model text: the answer it gives, normalised so that
// equal answers are equal strings, and its reasoning profile. Call [Read]
// with the question's [Kind]:
//
//	r := answer.Read(answer.GSM8K, text, answer.Options{Question: q, Critic: true})
//	r.Answer  // "18", or "" when the text states no answer that can be read without guessing
//	r.Profile // steps, tokens, hedges, stated confidence
//	r.Critic  // the text critic's confidence (Options.Critic), nil when it found nothing to check
//
// It is the one reader every path uses — the transcript importer (and the
// replay built on it), the live backend (env/llm) and the server (serve) —
// so that the features a policy is trained on mean what they mean when it
// decides.
//
// # Kinds
//
// A [Kind] picks the rules; [ParseKind] reads its name ("gsm8k" or "gsm",
// "mmlu", "arithmetic", "math") and *Kind is a flag.Value. gsm8k reads a
// number ([ExtractNumber]), mmlu an option letter ([ExtractLetter],
// [ExtractLetterIn] with the question's [Choices]), arithmetic an integer
// ([ExtractInteger]), math a LaTeX expression ([ExtractMath],
// [NormalizeMath]). Numbers are written in canonical decimal form
// ([NormalizeNumber]): "1,000", "$1000" and "1000.0" are "1000". A text
// that states no answer that can be read without guessing has none ("").
// Reasoning inside <think>...</think> is skipped for answers. [Gold]
// normalises a reference answer the same way. Each rule is written beside
// its code.
//
// # The text critic
//
// [Critic] is a confidence in the answer read from the text, with no
// model: [CheckArithmetic] checks the equations the reasoning states
// exactly, and the confidence is the share that hold. It is not the LLM
// judge of env/llm (a model grading an answer): the critic is arithmetic.
// A text with nothing to check, and every mmlu text, has no confidence
// (missing, not 0). Replays and imports put it in a turn's confidence only
// when asked (critic=on, --critic).
//
// # Bounds
//
// Every text is untrusted — a model can emit anything, and the server
// faces the network — so [Read] runs in time linear in the text with
// bounded extra memory, whatever its shape, and reads at most what the
// constants [MaxAnswerBytes], [MaxBoxes], [MaxBoxBytes],
// [MaxQuotientBytes], [MaxCriticBytes] and [MaxQuestionBytes] say.
//
// # Profile and tokens
//
// [ProfileOf] measures the whole text, thinking included (it was produced,
// and paid for); [EstimateTokens], ⌈runes/4⌉, is its token count in every
// source, so that the feature means the same in transcripts (which record
// no counts) and live.
package answer
