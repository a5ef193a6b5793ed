package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/outfile"
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
		resume, overwrite                                       bool
		maxLine                                                 int
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
(kind ` + strings.Join(llm.Kinds, ", ") + ` — any kind mpdf import reads,
gsm8k is gsm; gold optional: without it an episode earns no reward; see
go doc ./env/llm for the prompts of each kind).

The server, model and key come from the flags, else from the environment:
` + fmt.Sprintf("  --base-url  %s\n  --model     %s\n  --api-key   %s",
			strings.Join(llm.EnvBaseURL, ", "), strings.Join(llm.EnvModel, ", "), strings.Join(llm.EnvAPIKey, ", ")) + `
(prefer the environment for the key: flags show in the process list).
Failed calls are retried (--retries) with exponential backoff; a call
the server refuses (4xx other than 408/409/425/429) is not. On an error or
an interrupt (Ctrl-C or SIGTERM) every episode written so far is kept:
each is committed to --out (flushed, its own gzip member or zstd frame,
synced) as it ends, so that even a kill -9 loses only the episodes being
played. --resume with the same flags continues: it keeps the episodes in
--out (dropping a record torn by a kill) and plays only the missing ones.
An existing --out is refused without --resume or --overwrite, and a
second collection into an --out being written is refused (a lock, the
hidden file .NAME.lock beside it, which dies with its process).

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
			if resume && overwrite {
				return errors.New("--resume keeps --out's episodes, --overwrite replaces them: give one")
			}
			if err := checkMaxLine(maxLine); err != nil {
				return err
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
			cfg.MaxRetries = &retries
			cfg.Backoff = llm.Backoff{Jitter: 0.2, Seed: seed}
			if fl.Changed("temperature") {
				cfg.Temperature = &temperature
			}
			client, err := llm.NewClient(cfg)
			if err != nil {
				return err
			}

			// timeout, Docker, Kubernetes and Slurm stop a job with SIGTERM:
			// it ends the collection as an interrupt does, keeping every
			// episode written.
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
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
			plan := collectPlan{policy: pol.Name(), seed: seed, source: e.Name(), agents: agents, rounds: rounds,
				episodes: episodes, tasks: tasks[:n]}
			// One writer per output: a second collection (or --resume) on
			// it is refused while this one runs; the lock dies with us.
			if err := outfile.Check(out); err != nil {
				return err
			}
			lock, err := outfile.TryLock(out)
			if err != nil {
				return err
			}
			defer lock.Unlock()
			w, kept, err := plan.open(cmd.ErrOrStderr(), out, resume, overwrite, maxLine)
			if err != nil {
				return err
			}
			todo := plan.remaining()
			if len(todo) == 0 {
				w.Close()
				fmt.Fprintf(cmd.OutOrStdout(), "nothing to collect: %s holds all %d episodes\n", out, kept.Records)
				return nil
			}
			written, result, err := record(e, pol, env.RunOptions{
				Tasks: todo, Episodes: episodes, Rounds: rounds, Seed: seed,
				Greedy: greedy && pol.Learned, Workers: concurrency,
			}, w, "collect", len(todo)*episodes, quiet, true, plan.fresh, plan.tally)
			st := client.Stats()
			if err != nil {
				if errors.Is(err, context.Canceled) {
					err = errors.New("interrupted")
				}
				if written+kept.Records == 0 {
					w.Abort() // nothing collected: out is left as it was
					return err
				}
				// Every episode was committed as it came: Close keeps them
				// (and, after a failed write, cuts the torn one off).
				return errors.Join(fmt.Errorf("%w (kept %d episodes in %s, %d of them from this run; mpdf collect --resume with the same flags goes on; %d requests, %d failed)",
					err, written+kept.Records, out, written, st.Requests, st.Failures), w.Close())
			}
			if err := w.Close(); err != nil {
				return err
			}
			written += kept.Records
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
			if kept.Records > 0 {
				fmt.Fprintf(o, "resumed: %d of them were kept from the earlier run, %d played now\n", kept.Records, written-kept.Records)
			}
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
	f.BoolVar(&resume, "resume", false, "continue the collection in --out: keep its episodes, play only the missing ones (same flags as the first run)")
	f.BoolVar(&overwrite, "overwrite", false, "replace an existing --out (without it, or --resume, an existing file is refused)")
	addMaxLineFlag(cmd, &maxLine)
	for _, name := range []string{"tasks", "policy", "out"} {
		_ = cmd.MarkFlagRequired(name)
	}
	return cmd
}

// collectPlan is what one collection plays: episodes episodes of each
// task, by one policy under one seed, on one source (server and model).
type collectPlan struct {
	policy, source string
	seed           uint64
	agents, rounds int
	episodes       int
	tasks          []llm.Task
	done           map[string]bool // episode ids already in the output
	tally          *env.Tally
}

// open creates out, or with resume continues it: its episodes must be
// ones this plan plays (same policy, seed, tasks, source, team and rounds).
func (p *collectPlan) open(log io.Writer, out string, resume, overwrite bool, maxLine int) (*data.Writer, data.Continued, error) {
	p.done = map[string]bool{}
	p.tally = &env.Tally{Policy: p.policy}
	if !resume {
		if _, err := os.Lstat(out); err == nil && !overwrite {
			return nil, data.Continued{}, fmt.Errorf("%s exists: --resume continues its collection, --overwrite replaces it", out)
		}
		w, err := data.Create(out)
		if err != nil {
			return nil, data.Continued{}, err
		}
		w.SetMaxLineBytes(maxLine)
		return w, data.Continued{}, nil
	}
	want := map[string]bool{}
	for _, t := range p.tasks {
		for e := range p.episodes {
			want[env.EpisodeID(p.policy, p.seed, t.ID, e)] = true
		}
	}
	w, c, err := data.Continue(out, data.ReaderOptions{MaxLineBytes: maxLine}, func(rec data.Record) error {
		ep := rec.Episode
		switch {
		case ep == nil:
			return errors.New("a decision record: not a collection's output")
		case !want[ep.ID]:
			return fmt.Errorf("episode %q is not one of this collection's (policy %s, seed %d, %d tasks × %d episodes): resume with the first run's flags, or give another --out",
				ep.ID, p.policy, p.seed, len(p.tasks), p.episodes)
		case p.done[ep.ID]:
			return fmt.Errorf("episode %q appears twice", ep.ID)
		case ep.Source != p.source:
			return fmt.Errorf("episode %q comes from %s, this run from %s", ep.ID, ep.Source, p.source)
		case ep.Agents != p.agents || len(ep.Rounds) != p.rounds+1:
			return fmt.Errorf("episode %q has %d agents and %d rounds, this run %d and %d", ep.ID, ep.Agents, len(ep.Rounds)-1, p.agents, p.rounds)
		}
		p.done[ep.ID] = true
		return p.tally.Add(ep)
	})
	if err != nil {
		return nil, c, fmt.Errorf("--resume: %w", err)
	}
	if c.Torn != nil {
		fmt.Fprintf(log, "collect: dropped the torn last record of %s (%s)\n", out, c.Torn)
	}
	return w, c, nil
}

// remaining lists the tasks with episodes still to play.
func (p *collectPlan) remaining() []int {
	todo := []int{}
	for k, t := range p.tasks {
		for e := range p.episodes {
			if !p.done[env.EpisodeID(p.policy, p.seed, t.ID, e)] {
				todo = append(todo, k)
				break
			}
		}
	}
	return todo
}

// fresh reports whether ep is still to be written: a task played again
// replays its episodes already kept, which are not written twice.
func (p *collectPlan) fresh(ep *data.Episode) bool { return !p.done[ep.ID] }
