// Package llm is the live environment, beside the recorded one of
// env/replay: it runs deliberations against any server that speaks the
// OpenAI chat-completions API — vLLM, llama.cpp's llama-server, Ollama, or
// a hosted endpoint — and records them as data.Episodes that the trainer
// reads. It has two layers: a Client for POST {base}/chat/completions
// with timeouts, retries and a concurrency limit, and an Env (env.Env)
// whose games turn the meta-actions of design §1 into calls. [Collect]
// plays a policy through them and commits every episode to a file as it
// ends, resumable after an interrupt or a kill: what mpdf collect runs.
//
// # Running against a local server
//
// Start a server, then point the collector at its /v1 root:
//
//	llama-server -m qwen2.5-1.5b-instruct-q4_k_m.gguf --port 8080 --parallel 4
//	mpdf collect --api openai --base-url http://127.0.0.1:8080/v1 \
//	    --model qwen2.5-1.5b --tasks-file gsm.jsonl --out runs/episodes.jsonl
//
// and runs/episodes.jsonl is ready for mpdf train.
//
// vLLM: `vllm serve Qwen/Qwen2.5-1.5B-Instruct --port 8000`, base URL
// http://127.0.0.1:8000/v1, --model Qwen/Qwen2.5-1.5B-Instruct. Ollama:
// `ollama pull qwen2.5:1.5b`, base URL http://127.0.0.1:11434/v1,
// --model qwen2.5:1.5b. llama-server answers to any model name.
//
// # Configuration
//
// Config holds the server (BaseURL, Model, APIKey), the per-attempt
// Timeout (default 5 min: local models on a CPU are slow), MaxRetries
// (nil = 3; new(0) asks for none), Backoff (500 ms doubling up to 30 s, optional seeded jitter),
// MaxRetryAfter (60 s), Concurrency (4 requests in flight), and the
// sampling fields Temperature (nil = the server's default) and MaxTokens
// (0 = the server's). Zero fields take the defaults.
//
// ConfigFromEnv fills BaseURL, Model and APIKey from the environment:
//
//	MPDF_OPENAI_BASE_URL, else OPENAI_BASE_URL
//	MPDF_OPENAI_MODEL
//	MPDF_OPENAI_API_KEY, else OPENAI_API_KEY
//
// Flags win over the environment: the command line starts from
// ConfigFromEnv and overwrites each field whose flag was given. The key is
// sent as "Authorization: Bearer KEY" and appears in no record or error.
//
// # Tasks file
//
// JSON Lines, one task a line, blank lines skipped (ReadTasks):
//
//	{"id": "gsm-0", "question": "Janet's ducks lay 16 eggs ...", "gold": "18", "kind": "gsm"}
//	{"id": "mmlu-0", "question": "Which of the following is an example of monosomy?: A) 46,XX, B) 47,XXX, C) 69,XYY, D) 45,X", "gold": "D", "kind": "mmlu"}
//
//	{"id": "ar-0", "question": "What is the result of 6+19*28+14-10*7?", "gold": "482", "kind": "arithmetic"}
//	{"id": "math-0", "question": "If $\frac{n+5}{n-3} = 2$, what is $n$?", "gold": "11", "kind": "math"}
//
// kind is any kind the answer package reads (answer.ParseKind, any case),
// kept as this package's name (Kinds): "gsm" or "gsm8k" (a number, asked
// for as \boxed{N}), "mmlu" (a letter, asked for as (X); the question
// carries its options), "arithmetic" (an integer, asked for at the end of
// the response; the question is the whole sentence, as LLM-Debate's
// "What is the result of ...?") or "math" (a LaTeX expression, asked for
// as \boxed{...}; answers compare after answer.NormalizeMath). gold may
// be omitted (no reward is computed for the task) and is normalised by
// NormalizeGold, so GSM8K reference solutions ending "#### 18", letters
// written "(d)" and "\dfrac12" for 0.5 do. Unknown fields, empty ids or
// questions, other kinds, repeated ids and golds no answer could equal
// (gsm or arithmetic: not a number; mmlu: not a letter A–D) are errors
// reported as FILE:LINE: FIELD: reason.
//
// # What each action does
//
// Round 0: every agent gets the solve prompt, all agents at once. Round
// t ≥ 1 (Game.Step, callable for the agents of a round concurrently):
//
//   - persist: no call; the turn is the previous one carried over, 0 tokens.
//   - refine: one call whose conversation is the solve prompt, the agent's
//     own previous answer as the assistant message, and the refine prompt
//     showing the peers' previous answers in agent order (LLM-Debate keeps
//     every round's messages; this keeps only the latest answer so that
//     the context stays bounded and persist and concede leave no gaps).
//   - concede: the answer is metapolicy.ConcedeTarget's. By default no call
//     is made: the agent takes over the solution text, profile and
//     confidence of the peer holding that answer (highest confidence,
//     then lowest index) and the turn costs Options.ConcedeTokens (default
//     20, the simulator's figure for a short "I adopt agent k's answer"
//     message). With Options.ConcedeCall, the model is asked to restate
//     the adopted solution (the concede prompt) and the critic scores it;
//     the answer is the adopted one whatever the model writes. When no
//     peer has an answer, concede acts as persist.
//
// Options.Personas gives agents system messages (agent i gets
// Personas[i % len]); without them, agents differ only by their seeds.
//
// # Prompts
//
// Solve and refine are LLM-Debate's (Du et al.), word for word, as in the
// public transcripts (a test checks arithmetic's against one); Q is the
// question, S a solution, A an answer. LLM-Debate has no MATH task: math
// asks as gsm does, for "a simplified LaTeX expression" in the box.
//
//	solve, gsm:  Can you solve the following math problem? Q Explain your reasoning. Your final answer should be a single numerical number, in the form \boxed{answer}, at the end of your response.
//	solve, mmlu: Can you answer the following question as accurately as possible? Q Explain your answer, putting the answer in the form (X) at the end of your response.
//	refine:      These are the solutions to the problem from other agents: ⏎⏎ One agent solution: ```S``` (once per peer), then
//	  gsm:       ⏎⏎ Using the solutions from other agents as additional information, can you provide your answer to the math problem? ⏎ The original math problem is Q. Your final answer should be a single numerical number, in the form \boxed{answer}, at the end of your response.
//	  mmlu:      ⏎⏎ Using the reasoning from other agents as additional advice, can you give an updated answer? Examine your solution and that other agents step by step. Put your answer in the form (X) at the end of your response.
//	solve, arithmetic: Q Make sure to state your answer at the end of the response.
//	solve, math: as gsm, with "a simplified LaTeX expression" for "a single numerical number"
//	refine, arithmetic: These are the recent/updated opinions from other agents: ⏎⏎ One agent response: ```S``` (once per peer), then
//	             ⏎⏎ Use these opinions carefully as additional advice, can you provide an updated answer? Make sure to state your answer at the end of the response.
//	refine, math: as gsm, with "a simplified LaTeX expression" for "a single numerical number"
//	concede:     This is the solution to the problem from another agent, whose answer you now adopt: ```S```⏎⏎ Restate this solution in your own words. Your final answer must be A, in the form \boxed{answer}, at the end of your response.   (mmlu: "must be (A), in the form (X) at the end"; arithmetic: "must be A. Make sure to state your answer at the end of the response.")
//	critic:      Here is a problem and a proposed solution.⏎⏎Problem: Q⏎⏎Proposed solution: ```S```⏎⏎How likely is it that the final answer of the proposed solution is correct? Rate it from 0 (certainly wrong) to 100 (certainly correct). Reply with a single line of the form "Confidence: N".
//
// (⏎ is a newline; SolvePrompt, RefinePrompt, ConcedePrompt and
// CriticPrompt build them.) Solutions shown in prompts have their
// <think>…</think> blocks removed.
//
// # Answers, profile, confidence, tokens
//
// Answers and profiles are read by the answer package (answer.Read with
// the task's question), the same rules that read imported transcripts, so
// a policy trained on transcripts sees the same features live; an
// Options.Extract overrides the answer alone. The profile (steps, hedges,
// a stated confidence, tokens) measures the whole text of the answer,
// thinking included, and its Tokens is answer.EstimateTokens of that text
// — an estimate even when the server counted, so that the feature means
// the same thing in every source. The turn's cost (Turn.Tokens) uses the
// server's counts.
//
// Confidence comes from a critic pass, as in the paper: after every
// generated answer the same model, in a fresh conversation, rates the
// solution 0–100 (ParseConfidence reads "Confidence: N", a bare number,
// or N%); the turn's confidence is N/100. A reply without a score, or a
// critic call that fails, leaves the confidence missing (nil) — never 0
// — and says why in the critic exchange's Error. Options.NoCritic skips
// the pass.
//
// Token counts are the server's usage (prompt + completion tokens) of
// every call a turn makes, critic included. When an answer carries no
// usage, the counts are estimated (EstimatePromptTokens: answer.EstimateTokens
// per message plus four; answer.EstimateTokens for the completion) rather
// than taken as zero, which would make calls look free to the reward's
// token cost; Client.Stats().MissingUsage counts how often that happened,
// so a run can report it.
//
// Every call is recorded in the turn's Exchanges: role ("solve",
// "refine", "concede", "critic"), the prompt as the JSON array of the
// messages sent, the reply (a server's separate reasoning_content is kept
// in front of it as <think>…</think>), the token counts, and the error.
//
// # Retries, timeouts, errors
//
// Each attempt is bounded by Config.Timeout, which covers reading the
// whole body. Retried, up to MaxRetries times: timeouts (ErrTimeout),
// connection errors and broken bodies, and statuses 408, 409, 425, 429
// and 5xx. Retry k waits min(Max, Initial·2^(k−1)) less up to Jitter of
// it (drawn from a PCG stream seeded by Backoff.Seed, so waits repeat), or
// the server's retry-after-ms / Retry-After (seconds or HTTP date) when
// longer, capped at MaxRetryAfter. Not retried: other 4xx, returned as an
// *APIError quoting the server's message (the OpenAI, llama.cpp, vLLM,
// Ollama and FastAPI error shapes are understood); 2xx bodies that are not
// JSON, have no choices or no message, or negative token counts
// (ErrMalformed, quoting the start of the body); and cancellation of the
// caller's context, which also ends a wait between attempts.
//
// A failed solve, refine or concede call fails the Step (or Initial)
// with the task, round, agent and role in the error: an episode in which
// an action silently did nothing would teach the policy a wrong lesson.
// The collector decides whether to skip the episode or stop. A failed
// critic call only leaves the confidence missing, unless the context was
// cancelled.
//
// # Concurrency and determinism
//
// A Client is safe for concurrent use and keeps at most Concurrency
// requests in flight (a slot is held during an attempt, not during the
// wait before a retry). An Env may run many games at once. Game.Start
// draws one number from the episode's rng; each call's "seed" is derived
// from it, the round, the agent and the role, so a replayed episode sends
// the same seeds whatever order concurrent calls happen in (Options.NoSeed
// sends none). Whether the server then answers the same is up to the
// server: vLLM and llama.cpp do for the same model, batch and hardware.
package llm
