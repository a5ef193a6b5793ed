// Package transcript reads multi-agent debate transcripts — Du et al.'s
// LLM-Debate layout (design §5) and the variants found in the wild
// (DyLAN, LLM-Agora) — and turns each debated question into an episode.
// This is where a transcript becomes episodes:
//
//	f, err := transcript.ReadFile("gsm_Qwen3-14B_agents3_rounds3.json", transcript.Options{})
//	for i := range f.Questions {
//		ep := transcript.ToEpisode(&f.Questions[i], transcript.EpisodeOptions{})
//		...
//	}
//	im, err := transcript.Import("episodes.jsonl.zst", paths, transcript.ImportOptions{}) // mpdf import
//
// [ReadFile] reads a whole file, [Each] streams one question at a time
// (memory is bounded by the largest question, not the file), and [Import]
// writes every usable question of many files as episodes, atomically.
// gzip and zstd files are read as they are. The [Layout] is detected from
// the first JSON byte or chosen ([Options].Layout); an error names the
// file, the byte offset and the question.
//
// # Names
//
// The task (its [answer.Kind]) and the model come from the file name
// unless [Options] say: "gsm_3_2.json" (Du et al.: task, agents, rounds),
// "gsm_MODEL_persona_..._agentsN_roundsM.json", with an optional "agora_"
// or "dylan_" prefix ([ParseName], [Meta]). LLM-Debate's "rounds" counts
// answers per agent, round 0 included; this package counts deliberation
// rounds after round 0, as design §1 does (rounds3 → [Question.Rounds] = 2).
//
// # Answers
//
// Every answer is read by answer.Read with its question: normalised, ""
// when unreadable — counted in the [Report], never guessed. The
// transcripts record no token counts: [Answer].PromptTokens estimates the
// context the agent was sent and [Answer.Tokens] is prompt plus response,
// the cost of the turn. They carry no confidence either: [Answer].Critic is
// the text critic's (answer.Critic), which [ToEpisode] writes as the turns'
// confidence only with [EpisodeOptions].Critic; [Options].SkipCritic leaves
// it out for readers that never use it (it is most of reading).
//
// # Episodes
//
// [ToEpisode] writes a question as the episode the debate was: round 0 as
// recorded, every later round with action refine for every agent, under
// the policy name [DebatePolicy], behaviour log-probabilities absent.
// Questions are identified by [QuestionID], a hash of the task and text,
// so that one question debated in several files (other models, other team
// sizes) has one ID and a train/held-out split by ID (env/replay) keeps it
// on one side.
package transcript
