// Package transcript imports multi-agent debate transcripts in the layout of
// Du et al.'s LLM-Debate (SPEC §5) and reads what the agents answered.
//
// # Format
//
// A transcript file is one JSON object mapping each question's text to
// [agent_contexts, gold]. agent_contexts[k] is agent k's chat, a list of
// {"role", "content"} messages; its t-th "assistant" message is the agent's
// round-t answer (round 0 independent, later rounds written after seeing
// the peers' previous answers). gold is the reference: for GSM8K the whole
// reference solution ending in "#### N", for MMLU the letter. Each streams
// a file one question at a time (memory is bounded by the largest question,
// not the file) and keeps the file's question order; ReadFile collects it.
//
// The task (answer rules) and the model come from the file name unless
// Options say otherwise: "gsm_3_2.json" (Du et al.: task, agents, rounds) or
// "gsm_MODEL_persona_..._agentsN_roundsM.json". LLM-Debate's "rounds" counts
// answers per agent, round 0 included; this package counts deliberation
// rounds after round 0, as SPEC §1 does (rounds3 → Rounds() = 2).
//
// # Answers
//
// Every answer is normalised so that equal answers are equal strings, and
// an answer that cannot be read is "" — counted, per round and per file, in
// the Report, never guessed. Reasoning inside <think>...</think> is skipped;
// a response cut off inside an unclosed <think> has no answer.
//
// GSM8K (ExtractNumber): the last \boxed{...} holding a number (braces
// nest; a box inside a box counts as the later one), else the number after
// the last "####", else the last number of the text. Inside the chosen text
// the last number wins ("\boxed{30·3 = 90}" → 90). Numbers are written in
// canonical decimal form: thousands commas, "$", "\$", "%", units and
// trailing zeros go, so "1,000", "1000.0", "$1000" and "1000 dollars" are all
// "1000" and "2.50" is "2.5"; a "-" or "−" glued to the digits is a sign
// unless it follows a letter, digit or ")" ("10-5" is a subtraction, "11-19"
// a range); "a/b" and \frac{a}{b} are divided, exactly when the decimal
// ends, else to 6 places. A box that holds no number ("\boxed{Cannot be
// determined}") makes the answer unreadable rather than falling back to
// some number of the reasoning. Mixed numbers ("2 \frac{1}{2}") are not
// understood: the last number, 1/2, is taken.
//
// MMLU (ExtractLetter, ExtractLetterIn): a letter standing alone in the last
// \boxed{}; else the last stated answer of the text — "(B)", "answer is
// (B)", "Answer: **B**", "answer is option B", or "(X) B" (the prompt's
// placeholder followed by the letter); else a last line that is an option
// label ("B) Insulin"). The last statement wins, not the first, because the
// models discuss options before concluding ("(A) is wrong ... so (C)"); the
// LLM-Debate evaluation scripts also take the last "(X)". Lower-case "(b)"
// is not read: it is how enumerations look. When no letter is stated at all, an
// answer given as an option's text ("(X) Insulin", a closing "(45,X)") is
// matched against the choices of the question, parsed from LLM-Debate's
// MMLU prompt template (Choices). Gold letters are read the same way.
//
// # Profiles and costs
//
// ProfileOf gives each answer a reasoning profile: Steps (non-blank lines
// plus the sentence ends inside them), Tokens, and Hedges (HedgeWords).
// The transcripts record no token counts: Tokens is an estimate, ⌈runes/4⌉
// of the text (about four characters per BPE token in English).
// Answer.PromptTokens estimates the context the agent was sent — its whole
// chat so far, as LLM-Debate sends it — and Answer.Tokens() is prompt plus
// response, the cost of the turn. The transcripts carry no confidence: the
// introspective confidence is missing everywhere, and the self-confidence is
// missing unless the text states one on a line of its own ("Confidence:
// 0.8", "Confidence: 80%").
//
// # Episodes and baselines
//
// ToEpisode writes a question as the episode the debate was: round 0 as
// recorded, every later round with action refine for every agent, under the
// policy name "debate". Its behaviour log-probabilities are left absent:
// the debate did not sample its actions from a policy, and SPEC §4 then
// uses the learner's own log-probability (ratio 1) — claiming log 1 = 0
// for a deterministic behaviour would instead make the clipped ratio of
// every decision with a negative advantage flat, and drop those decisions.
//
// Baselines scores two fixed behaviours per file: persist (the round-0
// majority: every agent keeps its first answer) and debate (the majority of
// the last recorded round), with metapolicy.TeamAnswer; ByModel pools them
// by task and model. Questions are identified by QuestionID, a hash of the
// task and text, so that one question debated in several files (other
// models, other team sizes) has one ID, and a train/held-out split by ID
// keeps it on one side (see env/replay).
package transcript
