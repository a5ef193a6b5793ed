package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/internal/cliflag"
	"github.com/mpdf/mpdf/internal/progress"
)

func init() {
	register[collectFlags]("collect --base-url URL --model NAME --tasks-file FILE.jsonl --policy SPEC --out runs/episodes.jsonl [flags]", cobra.NoArgs)
}

// collectFlags are collect's flags: most are the collection's own
// (llm.CollectConfig), bound to it.
type collectFlags struct {
	cc                               llm.CollectConfig
	backend, policy, shard, urlsFile string
	baseURLs                         []string
	greedy, quiet, asJSON, noCache   bool
}

// Run runs the collection the flags ask for (llm.Collect) and says what
// it wrote.
func (fl *collectFlags) Run(cmd *cobra.Command, _ []string) error {
	cc, err := fl.config(cmd.Flags())
	if err != nil {
		return err
	}
	// timeout, Docker, Kubernetes and Slurm stop a job with SIGTERM: it
	// ends the collection as an interrupt does, keeping every episode
	// written.
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	var finish func()
	var describe func(string)
	cc.Progress, describe, finish = progress.LazyDescribed("collect", fl.quiet)
	cc.Endpoints = func(health string) { describe("collect [" + health + "]") }
	cc.Options.Context = ctx
	cc.Hint, cc.Log = "mpdf collect --resume with the same flags goes on", cmd.ErrOrStderr()
	c, err := llm.Collect(cc)
	finish()
	if err != nil {
		return err
	}
	if fl.asJSON && c.Written > 0 {
		return cliflag.PrintJSON(cmd.OutOrStdout(), c)
	}
	return c.WriteText(cmd.OutOrStdout())
}

// config is the collection of the flags: checked, with its policy, shard
// and server.
func (fl *collectFlags) config(f *pflag.FlagSet) (llm.CollectConfig, error) {
	cc := fl.cc
	if err := fl.check(); err != nil {
		return cc, err
	}
	pol, err := checkpoints.ResolvePolicy(fl.policy)
	if err != nil {
		return cc, err
	}
	if fl.shard != "" {
		if cc.Shard, cc.Shards, err = data.ParseShard(fl.shard); err != nil {
			return cc, fmt.Errorf("--%w", err)
		}
	}
	cc.Policy, cc.PolicyFile, cc.Greedy = pol, pol.Path, fl.greedy && pol.Learned
	switch {
	case fl.noCache && (cc.Cache != "" || len(cc.CacheFrom) > 0):
		return cc, errors.New("--no-cache keeps no cache: drop --cache and --cache-from")
	case fl.noCache:
	case cc.Cache == "":
		cc.Cache = llm.CachePath(cc.Out)
	}
	cc.Client, err = fl.client(f)
	return cc, err
}

// check refuses flag values out of range.
func (fl *collectFlags) check() error {
	if fl.backend != "openai" {
		return fmt.Errorf("--api %q: only openai (any OpenAI-compatible server) is supported", fl.backend)
	}
	c := fl.cc
	if c.Resume && c.Overwrite {
		return errors.New("--resume keeps --out's episodes, --overwrite replaces them: give one")
	}
	return nil
}

// client is the server's configuration: the flags', the environment's
// where the server, model or key is not given.
func (fl *collectFlags) client(f *pflag.FlagSet) (llm.Config, error) {
	cfg := fl.cc.Client.WithEnv(f.Changed("model"), f.Changed("api-key"))
	if err := cfg.SetBaseURLs(fl.baseURLs, fl.urlsFile); err != nil {
		return cfg, fmt.Errorf("--base-urls-file: %w", err)
	}
	return cfg, nil
}

// Add defines the flags on cmd.
func (fl *collectFlags) Add(cmd *cobra.Command) {
	f := cmd.Flags()
	f.StringVar(&fl.backend, "api", "openai", "API the server speaks: openai (any OpenAI-compatible chat-completions server)")
	f.StringArrayVar(&fl.baseURLs, "base-url", nil, "API root, e.g. http://127.0.0.1:8080/v1 (else "+llm.EnvBaseURL[0]+"); repeat it for replicas of the model")
	f.StringVar(&fl.urlsFile, "base-urls-file", "", "file of replicas' API roots, one a line (# comments), added to --base-url's")
	f.IntVar(&fl.cc.Client.PerEndpoint, "per-endpoint", 0, "most requests in flight at one replica (0 = --concurrency over the replicas, rounded up, so the others are not overloaded when one drops out)")
	shared(f, &fl.cc.Client.Model, "model", "", " (else "+llm.EnvModel[0]+")")
	f.StringVar(&fl.cc.Client.APIKey, "api-key", "", "API key (else "+strings.Join(llm.EnvAPIKey, " or ")+"; prefer the environment)")
	f.StringVar(&fl.cc.TasksFile, "tasks-file", "", "tasks file, JSON Lines of {id, question, gold, kind} (required)")
	shared(f, &fl.policy, "policy", "p", "; it chooses the actions (required)")
	shared(f, &fl.cc.Out, "out", "o", ": the episodes file, .jsonl, .jsonl.gz or .jsonl.zst (required)")
	shared(f, &fl.cc.Rounds, "rounds", "")
	shared(f, &fl.cc.Episodes, "episodes", "")
	shared(f, &fl.cc.Options.Agents, "agents", "")
	f.StringVar(&fl.shard, "shard", "", "play only shard K/N of the tasks (0 ≤ K < N; task id's FNV-1a 64 hash mod N) and record it beside --out for mpdf data merge")
	f.IntVar(&fl.cc.Limit, "limit", 0, "play only the first N tasks of the file (0 = all)")
	shared(f, &fl.cc.Seed, "seed", "", ": the action sampling and the per-call seeds sent to the server"+seedWas0)
	shared(f, &fl.greedy, "greedy", "")
	f.IntVar(&fl.cc.Client.Concurrency, "concurrency", llm.DefaultConcurrency, "most requests in flight at once (also the episodes played at once)")
	f.DurationVar(&fl.cc.Client.Timeout, "timeout", llm.DefaultTimeout, "bound on one attempt of a request (raise it for slow local models)")
	f.Var(cliflag.OptionalInt(&fl.cc.Client.MaxRetries, llm.DefaultMaxRetries), "retries", "retries of a failed request (0 = none)")
	cliflag.Sets(cmd, "retries", "max_retries")
	f.Var(cliflag.OptionalFloat(&fl.cc.Client.Temperature, 0), "temperature", "sampling temperature (default: the server's)")
	f.IntVar(&fl.cc.Client.MaxTokens, "max-tokens", 0, "bound on each completion's tokens (0 = the server's)")
	f.StringArrayVar(&fl.cc.Options.Personas, "persona", nil, "system message of agent i (cycled over the agents; repeatable)")
	f.BoolVar(&fl.cc.Options.NoJudge, "no-judge", false, "skip the judge call (the LLM grading the answer) after each answer (confidences missing)")
	f.BoolVar(&fl.cc.Options.ConcedeCall, "concede-call", false, "a conceding agent restates the adopted solution with a call (default: no call)")
	f.BoolVar(&fl.cc.Options.NoSeed, "no-seed", false, "send no per-call seed to the server")
	f.IntVar(&fl.cc.Client.MaxReplyBytes, "max-reply-bytes", llm.DefaultMaxReplyBytes, "longest reply taken (content and reasoning, bytes): a longer one stops the run, keeping the finished episodes; it bounds an episode's memory")
	f.StringVar(&fl.cc.Cache, "cache", "", "response cache file: every answer kept, a request it holds not sent (default: --out's name + .cache)")
	f.StringArrayVar(&fl.cc.CacheFrom, "cache-from", nil, "another response cache, only read (another shard's); repeatable")
	f.BoolVar(&fl.noCache, "no-cache", false, "keep no response cache")
	shared(f, &fl.quiet, "quiet", "q")
	shared(f, &fl.asJSON, "json", "")
	shared(f, &fl.cc.Resume, "resume", "", ": keep its episodes, play only the missing ones (same flags as the first run)")
	shared(f, &fl.cc.Overwrite, "overwrite", "")
	cliflag.MaxLine(cmd, &fl.cc.MaxLineBytes)
	for _, name := range []string{"tasks-file", "policy", "out"} {
		_ = cmd.MarkFlagRequired(name)
	}
}
