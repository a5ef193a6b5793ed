// Package llm plays deliberations live, against any server that speaks the
// OpenAI chat-completions API — vLLM, llama.cpp's llama-server, Ollama, or
// a hosted endpoint — and records them as data.Episodes that the trainer
// reads (the recorded environment is env/replay). It has two layers: a
// [Client] for POST {base}/chat/completions with timeouts, retries and a
// concurrency limit, and an [Env] (an env.Env) whose games turn the
// meta-actions of design §1 into calls. [Collect] plays a policy through
// them and commits every episode to a file as it ends, resumable after an
// interrupt or a kill: what mpdf collect runs.
//
// # Running against a local server
//
// Start a server, then point the collector at its /v1 root:
//
//	llama-server -m qwen2.5-1.5b-instruct-q4_k_m.gguf --port 8080 --parallel 4
//	mpdf collect --api openai --base-url http://127.0.0.1:8080/v1 \
//	    --model qwen2.5-1.5b --tasks-file gsm.jsonl --out runs/episodes.jsonl
//
// and runs/episodes.jsonl is ready for mpdf train. vLLM: `vllm serve
// Qwen/Qwen2.5-1.5B-Instruct --port 8000`, base URL http://127.0.0.1:8000/v1,
// --model Qwen/Qwen2.5-1.5B-Instruct. Ollama: `ollama pull qwen2.5:1.5b`,
// base URL http://127.0.0.1:11434/v1, --model qwen2.5:1.5b. llama-server
// answers to any model name. From Go, the same collection:
//
//	tasks, err := llm.ReadTasks("gsm.jsonl")
//	c, err := llm.Collect(llm.CollectConfig{Client: llm.ConfigFromEnv(), Tasks: tasks,
//		Rounds: 3, Policy: pol, Out: "episodes.jsonl"})
//
// [Config] holds the server (BaseURL, Model, APIKey), timeouts, retries and
// the requests in flight; zero fields take the defaults. Replicas of one
// model (vLLM, SGLang) go in BaseURLs: requests spread over them within
// PerEndpoint each, a failing one is taken out and probed back (pool.go). [ConfigFromEnv]
// fills the server from MPDF_OPENAI_BASE_URL (else OPENAI_BASE_URL),
// MPDF_OPENAI_MODEL and MPDF_OPENAI_API_KEY (else OPENAI_API_KEY); flags
// win over the environment. The key is sent as "Authorization: Bearer KEY"
// and appears in no record or error.
//
// # Tasks file
//
// JSON Lines, one task a line, blank lines skipped ([ReadTasks]):
//
//	{"id": "gsm-0", "question": "Janet's ducks lay 16 eggs ...", "gold": "18", "kind": "gsm8k"}
//	{"id": "mmlu-0", "question": "Which of the following is an example of monosomy?: A) 46,XX, B) 47,XXX, C) 69,XYY, D) 45,X", "gold": "D", "kind": "mmlu"}
//	{"id": "ar-0", "question": "What is the result of 6+19*28+14-10*7?", "gold": "482", "kind": "arithmetic"}
//	{"id": "math-0", "question": "If $\frac{n+5}{n-3} = 2$, what is $n$?", "gold": "11", "kind": "math"}
//
// kind is any name answer.ParseKind reads (any case): gsm8k (or gsm), mmlu,
// arithmetic or math. gold may be omitted (no reward is computed for the
// task). Errors are reported as FILE:LINE: FIELD: reason.
//
// # What the actions do
//
// Round 0: every agent solves. In later rounds persist makes no call; refine
// asks the agent again, showing the peers' previous answers (LLM-Debate's
// prompts, [SolvePrompt], [RefinePrompt]); concede adopts the peers'
// best-supported answer (metapolicy.ConcedeTarget), without a call unless
// [Options].ConcedeCall. After every generated answer the same model rates
// it 0–100 — the judge: [JudgePrompt], [ParseConfidence] — the agent's
// confidence, unless [Options].NoJudge. (The judge is an LLM call; the
// "critic" of answer.Critic and --critic elsewhere is an arithmetic check.) Every call is recorded in the turn's Exchanges.
//
// The details — prompts word for word, how answers, confidence and tokens
// are read, retries, seeds and concurrency — are beside their code:
// game.go, prompts.go, profile.go, client.go, pool.go, config.go, tasks.go.
package llm
