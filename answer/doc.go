// Package answer reads model text: the answer it gives, normalised so that
// equal answers are equal strings, and its reasoning profile. It is the one
// reader every path uses — the transcript importer (and the replay built on
// it), the live backend (env/llm) and the server (serve) — so that the features a
// policy is trained on mean what they mean when it decides.
//
//	r := answer.Read(answer.MMLU, text, answer.Options{Question: q})
//	r.Answer  // "B", or "" when the text states no answer that can be read without guessing
//	r.Profile // steps, tokens, hedges, stated confidence (Profile; data.Profile in the rollout format)
//
// # Kinds
//
// The [Kind] ([ParseKind]) picks the rules: gsm8k reads the last boxed
// number, else the number after "####", else the last number
// ([ExtractNumber]); mmlu the last stated option letter ([ExtractLetter],
// [ExtractLetterIn] with the question's [Choices]); arithmetic the last
// number of the last box or of the text ([ExtractInteger]); math the last
// box or "The answer is", as normalised LaTeX ([ExtractMath],
// [NormalizeMath]). Numbers are written in canonical decimal form
// ([NormalizeNumber]): "1,000", "$1000" and "1000.0" are "1000". A text
// that states no answer that can be read without guessing has none ("").
// Reasoning inside <think>...</think> is skipped for answers. [Gold]
// normalises a reference answer the same way. The rules in full are beside
// their code: number.go, letter.go, math.go, extract.go.
//
// # Critic
//
// Critic is a critic's confidence in the answer read from the text, with
// no model: for gsm8k, arithmetic and math, CheckArithmetic finds the
// equations the reasoning states ("3 * 12 = 36", "$5 + $7 = $12",
// "48/2 = 24", chains "= … =", LaTeX \times and \frac) and checks them
// exactly; the confidence is the share that hold, 0 when the answer is the
// stated result of one that does not. Equations next to a variable, a
// label ("Step 1 = …") or a unit conversion ("2 hours = 2 * 60") are not
// checked; a text with nothing to check, and every mmlu text, has no
// confidence (missing, not 0). Read returns it as Result.Critic; the
// replay and the importer put it in the turns' Confidence only when asked.
// On arithmetic questions, whose text usually restates the expression,
// it amounts to a calculator of the question.
//
// # Bounds
//
// Every text is untrusted — a model can emit anything, and the server
// faces the network — so Read runs in time linear in the text with bounded
// extra memory, whatever its shape: one pass finds the boxes (not one scan
// per box), numbers, stated answers ("answer is (B)", "The answer is"),
// stated confidences and the closing sentences are scanned without
// regular expressions (Go's backtracker clears a bitmap of the rest of the
// text at each match), numbers are written from their text, and what is
// read is capped by these constants:
//
//	MaxAnswerBytes   64 KiB  the answer is read from the last 64 KiB of the answer part
//	MaxBoxes         16      boxes looked in, from the last (a nested box is one more)
//	MaxBoxBytes      4 KiB   read of each box, from its opening brace
//	MaxQuotientBytes 64      longest "a/b" (or "a/b/c") divided; longer stay separate numbers
//	MaxCriticBytes   64 KiB  the critic checks the last 64 KiB of the text
//	MaxQuestionBytes 16 KiB  Choices reads the options from the last 16 KiB of the question
//
// The critic also fails an expression whose value passes 4,096 bits (or a
// number of more than 1,228 characters), so that a chain "7/7/7/…" costs a
// bounded amount per step, and its tokens take 32 bytes each: 1 MB of
// "1=" allocates under 5 MB. The profile reads the whole text, in one pass
// per measure. No cap changes how a shared transcript reads
// (TestReadSharedUnchanged), except the critic on two 74 KiB peer-solution
// prompts, which are no answer; BenchmarkReadAdversarial,
// TestReadWorkLinear and FuzzRead hold the rest to linear work.
//
// # Profile and tokens
//
// ProfileOf measures the whole text, thinking included (it was produced,
// and paid for): Steps are non-blank lines plus the sentence ends inside
// them; Hedges count HedgeWords; SelfConfidence is a confidence stated on
// a line of its own ("Confidence: 0.8", "80%", "8/10"), nil otherwise;
// Tokens is EstimateTokens, ⌈runes/4⌉ — one rule for every source, even
// when a server counted the tokens, so that the feature means the same
// thing in transcripts (which record no counts) and live. Costs
// (data.Turn.Tokens) may use a server's counts; the profile does not.
package answer
