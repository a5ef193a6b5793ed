package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/llm"
)

func init() { register(newCollectCmd) }

func newCollectCmd() *cobra.Command {
	var (
		backend, baseURL, model, apiKey, tasksFile, policy, out string
		personas                                                []string
		rounds, episodes, agents, limit, concurrency, retries   int
		maxTokens                                               int
		temperature                                             float64
		timeout                                                 time.Duration
		seed                                                    uint64
		greedy, noCritic, concedeCall, noSeed, quiet, asJSON    bool
	)
	cmd := &cobra.Command{
		Use:   "collect --base-url URL --model NAME --tasks FILE.jsonl --policy SPEC --out episodes.jsonl [flags]",
		Short: "Run live deliberations against an OpenAI-compatible server and write the episodes",
		Long: `Collect plays a policy with a team of LLM agents served by an
OpenAI-compatible chat-completions server (OpenAI, vLLM, llama.cpp, Ollama)
and writes every episode, with the LLM calls each turn made, as JSON Lines.
Round 0: every agent answers alone; then in each of --rounds rounds each
agent persists (no call), refines (shown its peers' answers) or concedes, as
the policy says. After each generated answer a critic call scores it: that
is the agent's confidence (--no-critic leaves it missing). Answers are read
by the task's rules, the same as mpdf import's.

Tasks come from a JSON Lines file, one per line:
  {"id": "gsm-17", "question": "...", "gold": "52", "kind": "gsm"}
(kind gsm or mmlu; gold optional: without it an episode earns no reward).

The server, model and key come from the flags, else from the environment:
` + fmt.Sprintf("  --base-url  %s\n  --model     %s\n  --api-key   %s",
			strings.Join(llm.EnvBaseURL, ", "), strings.Join(llm.EnvModel, ", "), strings.Join(llm.EnvAPIKey, ", ")) + `
(prefer the environment for the key: flags show in the process list).
Failed calls are retried (--retries) with exponential backoff; a call
the server refuses (4xx other than 408/409/425/429) is not. On an error or
an interrupt the episodes written so far are kept.

` + policySpecHelp,
		Example: `  mpdf collect --base-url http://127.0.0.1:8080/v1 --model qwen3-8b \
      --tasks gsm_test.jsonl --policy threshold --rounds 3 --out live.jsonl
  OPENAI_API_KEY=... mpdf collect --base-url https://api.openai.com/v1 --model gpt-4o-mini \
      --tasks tasks.jsonl --policy runs/best.mpdf --greedy --limit 50 --out gpt.jsonl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if backend != "openai" {
				return fmt.Errorf("--backend %q: only openai (any OpenAI-compatible server) is supported", backend)
			}
			if rounds < 1 || episodes < 1 || limit < 0 || concurrency < 1 || timeout <= 0 || retries < 0 || maxTokens < 0 {
				return fmt.Errorf("want --rounds ≥ 1, --episodes ≥ 1, --limit ≥ 0, --concurrency ≥ 1, --timeout > 0, --retries ≥ 0, --max-tokens ≥ 0")
			}
			pol, err := resolvePolicy(policy)
			if err != nil {
				return err
			}
			tasks, err := llm.ReadTasks(tasksFile)
			if err != nil {
				return err
			}
			if limit > len(tasks) {
				return fmt.Errorf("--limit %d: %s has %d tasks", limit, tasksFile, len(tasks))
			}

			cfg := llm.ConfigFromEnv() // flags take precedence over the environment
			fl := cmd.Flags()
			if fl.Changed("base-url") {
				cfg.BaseURL = baseURL
			}
			if fl.Changed("model") {
				cfg.Model = model
			}
			if fl.Changed("api-key") {
				cfg.APIKey = apiKey
			}
			cfg.Timeout, cfg.Concurrency, cfg.MaxTokens = timeout, concurrency, maxTokens
			cfg.MaxRetries = retries
			if retries == 0 {
				cfg.MaxRetries = -1 // llm reads 0 as its default
			}
			cfg.Backoff = llm.Backoff{Jitter: 0.2, Seed: seed}
			if fl.Changed("temperature") {
				cfg.Temperature = &temperature
			}
			client, err := llm.NewClient(cfg)
			if err != nil {
				return err
			}

			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt)
			defer stop()
			e, err := llm.NewEnv(client, tasks, llm.Options{
				Context: ctx, Agents: agents, Personas: personas,
				ConcedeCall: concedeCall, NoCritic: noCritic, NoSeed: noSeed,
			})
			if err != nil {
				return err
			}
			n := limit
			if n == 0 {
				n = len(tasks)
			}
			w, err := data.Create(out)
			if err != nil {
				return err
			}
			written, result, err := record(e, pol, env.RunOptions{
				NumTasks: limit, Episodes: episodes, Rounds: rounds, Seed: seed,
				Greedy: greedy && pol.Learned, Workers: concurrency,
			}, w, "collect", n*episodes, quiet)
			st := client.Stats()
			if err != nil {
				if errors.Is(err, context.Canceled) {
					err = errors.New("interrupted")
				}
				if written == 0 {
					return errors.Join(err, removeOnError(out))
				}
				return fmt.Errorf("%w (kept the %d episodes written before it in %s; %d requests, %d failed)",
					err, written, out, st.Requests, st.Failures)
			}
			o := cmd.OutOrStdout()
			res := env.Results{result}
			if asJSON {
				return printJSON(o, struct {
					Out      string      `json:"out"`
					Episodes int64       `json:"episodes"`
					Model    string      `json:"model"`
					Client   llm.Stats   `json:"client"`
					Results  env.Results `json:"results"`
				}{out, written, cfg.Model, st, res})
			}
			fmt.Fprintf(o, "wrote %d episodes (%d tasks × %d episodes, %d rounds, policy %s, model %s) to %s\n",
				written, n, episodes, rounds, pol.Name(), cfg.Model, out)
			fmt.Fprintf(o, "calls: %d requests, %d attempts, %d retries, %d failed; tokens: %d prompt, %d completion (%d answers without usage)\n",
				st.Requests, st.Attempts, st.Retries, st.Failures, st.PromptTokens, st.CompletionTokens, st.MissingUsage)
			return res.WriteTable(o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&backend, "backend", "openai", "backend: openai (any OpenAI-compatible chat-completions server)")
	f.StringVar(&baseURL, "base-url", "", "API root, e.g. http://127.0.0.1:8080/v1 (else "+llm.EnvBaseURL[0]+")")
	f.StringVar(&model, "model", "", "model name sent with every request (else "+llm.EnvModel[0]+")")
	f.StringVar(&apiKey, "api-key", "", "API key (else "+strings.Join(llm.EnvAPIKey, " or ")+"; prefer the environment)")
	f.StringVar(&tasksFile, "tasks", "", "tasks file, JSON Lines of {id, question, gold, kind} (required)")
	f.StringVar(&policy, "policy", "", "policy that chooses the actions: a heuristic name or a .mpdf/.safetensors file (required)")
	f.StringVarP(&out, "out", "o", "", "output episodes file: .jsonl, .jsonl.gz or .jsonl.zst (required)")
	f.IntVar(&rounds, "rounds", env.DefaultRounds, "deliberation rounds after round 0")
	f.IntVar(&episodes, "episodes", 1, "episodes per task")
	f.IntVar(&agents, "agents", 3, "team size N ≥ 2")
	f.IntVar(&limit, "limit", 0, "play only the first N tasks of the file (0 = all)")
	f.Uint64Var(&seed, "seed", 0, "seed of the action sampling and of the per-call seeds sent to the server")
	f.BoolVar(&greedy, "greedy", false, "a learned policy takes its most probable action instead of sampling (heuristics unaffected)")
	f.IntVar(&concurrency, "concurrency", llm.DefaultConcurrency, "most requests in flight at once (also the episodes played at once)")
	f.DurationVar(&timeout, "timeout", llm.DefaultTimeout, "bound on one attempt of a request (raise it for slow local models)")
	f.IntVar(&retries, "retries", llm.DefaultMaxRetries, "retries of a failed request (0 = none)")
	f.Float64Var(&temperature, "temperature", 0, "sampling temperature (default: the server's)")
	f.IntVar(&maxTokens, "max-tokens", 0, "bound on each completion's tokens (0 = the server's)")
	f.StringArrayVar(&personas, "persona", nil, "system message of agent i (cycled over the agents; repeatable)")
	f.BoolVar(&noCritic, "no-critic", false, "skip the critic call after each answer (confidences missing)")
	f.BoolVar(&concedeCall, "concede-call", false, "a conceding agent restates the adopted solution with a call (default: no call)")
	f.BoolVar(&noSeed, "no-seed", false, "send no per-call seed to the server")
	f.BoolVarP(&quiet, "quiet", "q", false, "no progress bar")
	f.BoolVar(&asJSON, "json", false, "print the summary as JSON")
	for _, name := range []string{"tasks", "policy", "out"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}
