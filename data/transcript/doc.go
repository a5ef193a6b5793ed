// Package transcript (data/transcript, beside data's rollout formats)
// imports multi-agent debate transcripts — Du et al.'s LLM-Debate layout
// (design §5) and the variants found in the wild — and reads what the
// agents answered, with the answer package's rules.
//
// # Layouts
//
// Each reads one file a question at a time (memory is bounded by the
// largest question, not the file), in file order; ReadFile collects it.
// gzip and zstd files are read as they are (magic bytes decide). The
// layout is detected from the first JSON byte or chosen (Options.Layout):
//
//   - debate: one JSON object mapping each question's text to
//     [agent_contexts, gold, extra...]. agent_contexts[k] is agent k's
//     chat: {"role", "content"} messages, whose t-th "assistant" message
//     is its round-t answer, or plain strings (the first the prompt, each
//     later one a reply). "system" messages count only towards the prompt.
//     Elements after gold (Diverse_Minds' correct flag, DyLAN's index and
//     subject) are skipped. DyLAN's teams vary by question (2–4 agents,
//     1–3 answers); a question where agents recorded different numbers of
//     answers is ragged: the one that stopped keeps its last answer.
//   - agora: LLM-Agora's JSON array of {question_id, question,
//     agent_response: {model: [answer per round]}, summarization, answer}.
//     Each agent is a different model; Question.Models keeps them, in file
//     order, and the episode's Source names them.
//
// A file that is neither, or a question that departs from its layout, is
// an error naming the file, the byte offset (of the decompressed stream),
// the question's index and what was expected. So is a question text given
// twice in one file (its two episodes would share a task id), a text
// longer than data.MaxTextBytes (4 MiB) or a question longer than
// MaxQuestionBytes (32 MiB), both counted as written: the read stops there,
// before the decoder holds the over-long value, so a small compressed file
// cannot take more memory than the caps. A leading UTF-8 byte order mark
// is skipped; a compressed file cut short is said to be truncated.
//
// The task (answer rules: gsm8k, mmlu, arithmetic, math) and the model come
// from the file name unless Options say: "gsm_3_2.json" (Du et al.: task,
// agents, rounds), "gsm_MODEL_persona_..._agentsN_roundsM.json", with an
// optional "agora_" or "dylan_" prefix. LLM-Debate's "rounds" counts
// answers per agent, round 0 included; this package counts deliberation
// rounds after round 0, as design §1 does (rounds3 → Rounds() = 2).
//
// # Answers and profiles
//
// Every answer is read by answer.Read with its question (so an MMLU answer
// given as an option's text can be matched to the options): normalised,
// "" when unreadable — counted, per round and per file, in the Report,
// never guessed. The profile is answer.ProfileOf. The transcripts record
// no token counts: Answer.PromptTokens estimates the context the agent was
// sent (its whole chat so far, as LLM-Debate sends it; for Agora the
// question and its own earlier answers) with answer.EstimateTokens, and
// Answer.Tokens() is prompt plus response, the cost of the turn. The
// transcripts carry no introspective confidence; Answer.Critic is the
// critic's read from the text (answer.Critic), which ToEpisode writes as
// the turns' confidence only with EpisodeOptions.Critic. Options.SkipCritic
// leaves it out for readers that never use it (Import without
// EpisodeOptions.Critic, data corpus): the critic is most of reading.
//
// # Episodes
//
// ToEpisode writes a question as the episode the debate was: round 0 as
// recorded, every later round with action refine for every agent, under the
// policy name "debate". Its behaviour log-probabilities are left absent:
// the debate did not sample its actions from a policy, and design §4 then
// uses the learner's own log-probability (ratio 1) — claiming log 1 = 0
// for a deterministic behaviour would instead make the clipped ratio of
// every decision with a negative advantage flat, and drop those decisions.
//
// Questions are identified by QuestionID, a hash of the
// task and text, so that one question debated in several files (other
// models, other team sizes) has one ID, and a train/held-out split by ID
// keeps it on one side (see env/replay).
package transcript
