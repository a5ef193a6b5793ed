// Package llm plays deliberations live, against any server that speaks the
// OpenAI chat-completions API — vLLM, llama.cpp's llama-server, Ollama, or
// a hosted endpoint — and records them as data.Episodes that the trainer
// reads (the recorded environment is env/replay). [Collect] plays a policy
// and commits every episode as it ends, in whatever order episodes end, to
// a spool beside its output, written in task order when the run ends;
// every answer goes to a response [Cache] (bbolt) as it comes. A run is
// resumable after an interrupt or a kill, paying for no call twice: what
// mpdf collect runs.
//
//	tasks, err := llm.ReadTasks("gsm.jsonl")
//	cfg := llm.ConfigFromEnv() // MPDF_OPENAI_BASE_URL, MPDF_OPENAI_MODEL, MPDF_OPENAI_API_KEY
//	c, err := llm.Collect(llm.CollectConfig{Client: cfg, Tasks: tasks,
//		Episodes: 1, Rounds: 3, Policy: pol, Out: "episodes.jsonl"})
//
// It has two layers: a [Client] for POST {base}/chat/completions with
// timeouts, retries and a concurrency limit, configured by [Config]
// (replicas of one model in BaseURLs; zero fields take the defaults), and
// an [Env] (an env.Env, [NewEnv]) whose games turn the meta-actions of
// design §1 into calls.
//
// # Against a local server
//
// Start a server, then point the collector at its /v1 root:
//
//	llama-server -m qwen2.5-1.5b-instruct-q4_k_m.gguf --port 8080 --parallel 4
//	mpdf collect --api openai --base-url http://127.0.0.1:8080/v1 \
//	    --model qwen2.5-1.5b --tasks-file gsm.jsonl --out runs/episodes.jsonl
//
// and runs/episodes.jsonl is ready for mpdf train. vLLM: `vllm serve
// Qwen/Qwen2.5-1.5B-Instruct --port 8000`, base URL
// http://127.0.0.1:8000/v1, --model Qwen/Qwen2.5-1.5B-Instruct. Ollama:
// `ollama pull qwen2.5:1.5b`, base URL http://127.0.0.1:11434/v1, --model
// qwen2.5:1.5b. llama-server answers to any model name.
//
// # Tasks
//
// A tasks file is JSON Lines, one [Task] a line ([ReadTasks]):
//
//	{"id": "gsm-0", "question": "Janet's ducks lay 16 eggs ...", "gold": "18", "kind": "gsm8k"}
//
// kind is an answer.Kind (gsm8k, mmlu, arithmetic, math); gold may be
// omitted (no reward). Errors read FILE:LINE: FIELD: reason.
//
// # What the actions do
//
// Round 0: every agent solves. Later, persist makes no call; refine asks
// the agent again, showing the peers' previous answers (LLM-Debate's
// prompts, [SolvePrompt], [RefinePrompt]); concede adopts the peers'
// best-supported answer, without a call unless [Options].ConcedeCall.
// After every generated answer the LLM judge — the same model, rating it
// 0–100 ([JudgePrompt], [ParseConfidence]) — gives the agent's confidence,
// unless [Options].NoJudge. (The text critic of answer.Critic is another
// thing: an arithmetic check, no model.) Every call is recorded in the
// turn's Exchanges; the details are beside their code.
package llm
