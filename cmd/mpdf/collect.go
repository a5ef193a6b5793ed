package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/internal/progress"
)

func init() { register(newCollectCmd) }

// collectFlags are collect's flags.
type collectFlags struct {
	backend, baseURL, model, apiKey, tasks, policy, out, shard    string
	personas                                                      []string
	rounds, episodes, agents, limit, concurrency, retries, maxTok int
	maxLine                                                       int
	temperature                                                   float64
	timeout                                                       time.Duration
	seed                                                          uint64
	greedy, noJudge, concedeCall, noSeed, quiet, asJSON           bool
	resume, overwrite                                             bool
}

func newCollectCmd() *cobra.Command {
	var fl collectFlags
	cmd := command("collect --base-url URL --model NAME --tasks-file FILE.jsonl --policy SPEC --out runs/episodes.jsonl [flags]", cobra.NoArgs, func(cmd *cobra.Command, _ []string) error { return runCollect(cmd, &fl) })
	fl.add(cmd)
	return cmd
}

// runCollect checks the flags and runs one collection.
func runCollect(cmd *cobra.Command, fl *collectFlags) error {
	if err := fl.check(); err != nil {
		return err
	}
	pol, err := resolvePolicy(fl.policy)
	if err != nil {
		return err
	}
	tasks, err := llm.ReadTasks(fl.tasks)
	if err != nil {
		return err
	}
	if fl.limit > len(tasks) {
		return fmt.Errorf("--limit %d: %s has %d tasks", fl.limit, fl.tasks, len(tasks))
	}
	if fl.limit > 0 {
		tasks = tasks[:fl.limit]
	}
	shard, shards := 0, 0
	if fl.shard != "" {
		if shard, shards, err = data.ParseShard(fl.shard); err != nil {
			return fmt.Errorf("--%w", err)
		}
	}
	// timeout, Docker, Kubernetes and Slurm stop a job with SIGTERM: it
	// ends the collection as an interrupt does, keeping every episode
	// written.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	progress, finish := progress.Lazy("collect", fl.quiet)
	c, err := llm.Collect(llm.CollectConfig{
		Client: fl.client(cmd.Flags()),
		Options: llm.Options{Context: ctx, Agents: fl.agents, Personas: fl.personas,
			ConcedeCall: fl.concedeCall, NoJudge: fl.noJudge, NoSeed: fl.noSeed},
		Tasks: tasks, Episodes: fl.episodes, Rounds: fl.rounds, Policy: pol, Seed: fl.seed,
		Greedy: fl.greedy && pol.Learned, Shard: shard, Shards: shards, TasksFile: fl.tasks, PolicyFile: pol.Path, Out: fl.out, Resume: fl.resume, Overwrite: fl.overwrite,
		MaxLineBytes: fl.maxLine, Hint: "mpdf collect --resume with the same flags goes on", Log: cmd.ErrOrStderr(),
		Progress: progress,
	})
	finish()
	if err != nil {
		return err
	}
	if fl.asJSON && c.Written > 0 {
		return printJSON(cmd.OutOrStdout(), c)
	}
	return c.WriteText(cmd.OutOrStdout())
}

// check refuses flag values out of range.
func (fl *collectFlags) check() error {
	if fl.backend != "openai" {
		return fmt.Errorf("--api %q: only openai (any OpenAI-compatible server) is supported", fl.backend)
	}
	if fl.resume && fl.overwrite {
		return errors.New("--resume keeps --out's episodes, --overwrite replaces them: give one")
	}
	if err := checkMaxLine(fl.maxLine); err != nil {
		return err
	}
	if fl.rounds < 1 || fl.episodes < 1 || fl.limit < 0 || fl.concurrency < 1 || fl.timeout <= 0 || fl.retries < 0 || fl.maxTok < 0 {
		return fmt.Errorf("want --rounds ≥ 1, --episodes ≥ 1, --limit ≥ 0, --concurrency ≥ 1, --timeout > 0, --retries ≥ 0, --max-tokens ≥ 0")
	}
	return nil
}

// client is the server's configuration: the environment's, overridden by
// the flags given.
func (fl *collectFlags) client(f *pflag.FlagSet) llm.Config {
	cfg := llm.ConfigFromEnv()
	if f.Changed("base-url") {
		cfg.BaseURL = fl.baseURL
	}
	if f.Changed("model") {
		cfg.Model = fl.model
	}
	if f.Changed("api-key") {
		cfg.APIKey = fl.apiKey
	}
	cfg.Timeout, cfg.Concurrency, cfg.MaxTokens = fl.timeout, fl.concurrency, fl.maxTok
	cfg.MaxRetries = &fl.retries
	cfg.Backoff = llm.Backoff{Jitter: 0.2, Seed: fl.seed}
	if f.Changed("temperature") {
		cfg.Temperature = &fl.temperature
	}
	return cfg
}

// add defines the flags on cmd.
func (fl *collectFlags) add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&fl.backend, "api", "openai", "API the server speaks: openai (any OpenAI-compatible chat-completions server)")
	f.StringVar(&fl.baseURL, "base-url", "", "API root, e.g. http://127.0.0.1:8080/v1 (else "+llm.EnvBaseURL[0]+")")
	shared(f, &fl.model, "model", "", " (else "+llm.EnvModel[0]+")")
	f.StringVar(&fl.apiKey, "api-key", "", "API key (else "+strings.Join(llm.EnvAPIKey, " or ")+"; prefer the environment)")
	f.StringVar(&fl.tasks, "tasks-file", "", "tasks file, JSON Lines of {id, question, gold, kind} (required)")
	shared(f, &fl.policy, "policy", "", " that chooses the actions (required)")
	shared(f, &fl.out, "out", "o", ": the episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	shared(f, &fl.rounds, "rounds", "")
	shared(f, &fl.episodes, "episodes", "")
	shared(f, &fl.agents, "agents", "")
	f.StringVar(&fl.shard, "shard", "", "play only shard K/N of the tasks (0 ≤ K < N; task id's FNV-1a 64 hash mod N) and record it beside --out for mpdf data merge")
	f.IntVar(&fl.limit, "limit", 0, "play only the first N tasks of the file (0 = all)")
	shared(f, &fl.seed, "seed", "", ": the action sampling and the per-call seeds sent to the server"+seedWas0)
	shared(f, &fl.greedy, "greedy", "")
	f.IntVar(&fl.concurrency, "concurrency", llm.DefaultConcurrency, "most requests in flight at once (also the episodes played at once)")
	f.DurationVar(&fl.timeout, "timeout", llm.DefaultTimeout, "bound on one attempt of a request (raise it for slow local models)")
	f.IntVar(&fl.retries, "retries", llm.DefaultMaxRetries, "retries of a failed request (0 = none)")
	f.Float64Var(&fl.temperature, "temperature", 0, "sampling temperature (default: the server's)")
	f.IntVar(&fl.maxTok, "max-tokens", 0, "bound on each completion's tokens (0 = the server's)")
	f.StringArrayVar(&fl.personas, "persona", nil, "system message of agent i (cycled over the agents; repeatable)")
	f.BoolVar(&fl.noJudge, "no-judge", false, "skip the judge call (the LLM grading the answer) after each answer (confidences missing)")
	f.BoolVar(&fl.concedeCall, "concede-call", false, "a conceding agent restates the adopted solution with a call (default: no call)")
	f.BoolVar(&fl.noSeed, "no-seed", false, "send no per-call seed to the server")
	shared(f, &fl.quiet, "quiet", "q")
	shared(f, &fl.asJSON, "json", "")
	shared(f, &fl.resume, "resume", "", ": keep its episodes, play only the missing ones (same flags as the first run)")
	shared(f, &fl.overwrite, "overwrite", "")
	addMaxLineFlag(cmd, &fl.maxLine)
	for _, name := range []string{"tasks-file", "policy", "out"} {
		_ = cmd.MarkFlagRequired(name)
	}
}
