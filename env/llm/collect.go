package llm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
)

// CollectConfig is one collection: Episodes episodes of each task, played
// by one policy under one seed against one server (or replicas of it) and
// model, written to Out as they end.
type CollectConfig struct {
	// Client is the server; Client.Concurrency is also the episodes played
	// at once. A zero Client.Backoff spaces the retries with CollectJitter,
	// drawn from Seed: many collections that a server failed at once do not
	// all retry at once, and one seed waits the same again.
	Client  Config
	Options Options // the team; Options.Context stops the collection
	// Tasks are the tasks to play, each Episodes times (0: once) with
	// Rounds deliberation rounds after round 0 (0: env.DefaultRounds); nil
	// reads them from TasksFile (ReadTasks) when it is set. Limit > 0 plays only the
	// first Limit of them.
	Tasks            []Task
	Episodes, Rounds int
	Limit            int
	Policy           metapolicy.Policy
	Seed             uint64 // of the action sampling and the per-call seeds
	Greedy           bool   // a learned policy takes its most probable action

	// Shards > 0 plays only shard Shard of Shards (0 ≤ Shard < Shards):
	// the tasks whose id data.ShardOf puts there, and records it beside
	// Out (data.CollectShard, at data.ShardRecordPath(Out)) with the
	// inputs that shape the episodes, for data.MergeShards. TasksFile and
	// PolicyFile, when set, are hashed into that record.
	Shard, Shards         int
	TasksFile, PolicyFile string

	// Out is the episodes file (.jsonl, .jsonl.gz or .jsonl.zst). An
	// existing Out is refused unless Resume (keep its episodes, which must
	// be this collection's, and play only the missing ones) or Overwrite.
	Out               string
	Resume, Overwrite bool
	MaxLineBytes      int // longest record line written or read
	// Cache, when set, is the response cache file (OpenCache): every
	// answer is kept there as it comes, and a request it holds is not sent
	// (a resumed or re-run collection pays for no call twice). CacheFrom
	// are more caches only read (other shards', say), after Cache.
	Cache     string
	CacheFrom []string
	// Hint, when set, ends the error of a collection that stopped with
	// episodes kept in Out: how to go on (e.g. the command to resume).
	Hint string
	// Log receives notes (a torn record dropped on resume); nil discards.
	Log io.Writer
	// Progress, when set, is called with 0 episodes done before the first
	// episode is played, then after each (total: the episodes to play now).
	Progress func(done, total int)
	// Endpoints, when set and the client has several endpoints, is called
	// after Progress with their state (Client.Health) when it changed.
	Endpoints func(health string)
}

// CollectJitter is the backoff jitter of a collection whose client sets
// no Backoff (CollectConfig.Client).
const CollectJitter = 0.2

// collectScope is the scope of CollectConfig's settings out of range
// (*errmark.Setting, keyed episodes, rounds, limit).
const collectScope = "llm: collect"

// resolve reads the tasks if cfg has none, keeps the first Limit, and
// gives Episodes and Rounds their defaults: a collection records and
// resumes them as played.
func (cfg *CollectConfig) resolve() error {
	switch {
	case cfg.Episodes < 0:
		return errmark.Bad(collectScope, "episodes", cfg.Episodes, "want ≥ 0 (0: 1)")
	case cfg.Rounds < 0:
		return errmark.Bad(collectScope, "rounds", cfg.Rounds, fmt.Sprintf("want ≥ 0 (0: %d)", env.DefaultRounds))
	case cfg.Limit < 0:
		return errmark.Bad(collectScope, "limit", cfg.Limit, "want ≥ 0 (0: all)")
	}
	cfg.Episodes, cfg.Rounds = cmp.Or(cfg.Episodes, 1), cmp.Or(cfg.Rounds, env.DefaultRounds)
	if cfg.Client.Backoff == (Backoff{}) {
		cfg.Client.Backoff = Backoff{Jitter: CollectJitter, Seed: cfg.Seed}
	}
	var err error
	if cfg.Tasks == nil && cfg.TasksFile != "" {
		if cfg.Tasks, err = ReadTasks(cfg.TasksFile); err != nil {
			return err
		}
	}
	if cfg.Limit > len(cfg.Tasks) {
		return errmark.Bad(collectScope, "limit", cfg.Limit, fmt.Sprintf("%s has %d tasks", cfg.TasksFile, len(cfg.Tasks)))
	}
	if cfg.Limit > 0 {
		cfg.Tasks = cfg.Tasks[:cfg.Limit]
	}
	return nil
}

// Collection is what a collection did.
type Collection struct {
	Model   string
	Written int64      // episodes written by this run: 0 when Out held them all
	Kept    int64      // episodes kept from an earlier run (Resume)
	Result  env.Result // tally of every episode in Out, kept ones too
	Stats   Stats      // the client's calls
	// Endpoints are the client's endpoints with their calls, tokens and
	// errors, in the order Client.BaseURL and BaseURLs gave them.
	Endpoints []EndpointStats
	Cache     *CacheStats // the response cache, when there is one

	out, policy             string // for the report
	tasks, episodes, rounds int
}

// MarshalJSON encodes c as mpdf collect --json prints it: the output, its
// episodes, the model, the client's calls, each endpoint's and the results.
func (c *Collection) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Out       string          `json:"out"`
		Episodes  int64           `json:"episodes"`
		Model     string          `json:"model"`
		Client    Stats           `json:"client"`
		Endpoints []EndpointStats `json:"endpoints"`
		Cache     *CacheStats     `json:"cache,omitempty"`
		Results   env.Results     `json:"results"`
	}{c.out, c.Written + c.Kept, c.Model, c.Stats, c.Endpoints, c.Cache, env.Results{c.Result}})
}

// WriteText reports the collection: what was written (or that nothing
// was left to collect), the calls and tokens, and the results table.
func (c *Collection) WriteText(w io.Writer) error {
	if c.Written == 0 {
		_, err := fmt.Fprintf(w, "nothing to collect: %s holds all %d episodes\n", c.out, c.Kept)
		return err
	}
	fmt.Fprintf(w, "wrote %d episodes (%d tasks × %d episodes, %d rounds, policy %s, model %s) to %s\n",
		c.Written+c.Kept, c.tasks, c.episodes, c.rounds, c.policy, c.Model, c.out)
	if c.Kept > 0 {
		fmt.Fprintf(w, "resumed: %d of them were kept from the earlier run, %d played now\n", c.Kept, c.Written)
	}
	st := c.Stats
	fmt.Fprintf(w, "calls: %d requests, %d attempts, %d retries, %d failed; tokens: %d prompt, %d completion (%d answers without usage)\n",
		st.Requests, st.Attempts, st.Retries, st.Failures, st.PromptTokens, st.CompletionTokens, st.MissingUsage)
	if st.NullContent > 0 {
		fmt.Fprintf(w, "warning: %d answers had null content, recorded as empty replies\n", st.NullContent)
	}
	if cs := c.Cache; cs != nil {
		fmt.Fprintf(w, "cache: %s holds %d responses in %.1f MB; %d answers taken from it (no request sent), %d added\n",
			cs.Path, cs.Responses, float64(cs.Bytes)/1e6, cs.Hits, cs.Added)
	}
	if len(c.Endpoints) > 1 {
		writeEndpoints(w, c.Endpoints, st.Moved)
	}
	return env.Results{c.Result}.WriteTable(w)
}

// writeEndpoints reports each endpoint: its calls, tokens and errors, and
// whether it ended in rotation.
func writeEndpoints(w io.Writer, eps []EndpointStats, moved int64) {
	fmt.Fprintf(w, "endpoints: %d (%d attempts moved at once to another after a failure)\n", len(eps), moved)
	for _, e := range eps {
		state := "live"
		if !e.Live {
			state = "out"
		}
		fmt.Fprintf(w, "  %s: %d attempts, %d answered, %d errors, taken out %d×; tokens: %d prompt, %d completion; %s at the end",
			e.URL, e.Attempts, e.Answers, e.Errors, e.Outs, e.PromptTokens, e.CompletionTokens, state)
		if e.Errors > 0 {
			fmt.Fprintf(w, "; last error: %s", e.LastError)
		}
		fmt.Fprintln(w)
	}
}

// Collect plays cfg.Policy with the team of cfg.Options through the
// server of cfg.Client. Each episode is committed as it ends, whatever the
// episodes before it in task order are doing, to a spool beside cfg.Out
// (data.SpoolPath: appended, flushed and synced), and when the run ends —
// finished, failed or interrupted (cfg.Options.Context cancelled) — Out
// is written from the spool in task order, then the spool removed. So an
// error, an interrupt or even a kill keeps every episode that had ended,
// and one slow episode holds one of the cfg.Client.Concurrency episodes
// in play, never the others. One collection writes to an Out at a time:
// another is refused while this one holds Out's lock (outfile.TryLock).
// With cfg.Resume the episodes already in Out and in a spool left by a
// killed run are kept (a torn last record dropped) and only the missing
// ones are played; they must come from the same policy, seed, tasks,
// server, model, team and rounds. On an error before any episode was
// collected, Out is left as it was.
func Collect(cfg CollectConfig) (*Collection, error) {
	if cfg.Resume && cfg.Overwrite {
		return nil, errors.New("llm: collect: Resume keeps Out's episodes, Overwrite replaces them: give one")
	}
	// Out and the cache are written; the tasks, the policy and the
	// read-only caches are inputs a collection must not write over.
	if err := outfile.NotAnInput(cfg.Out, append([]string{cfg.TasksFile, cfg.PolicyFile, cfg.Cache}, cfg.CacheFrom...)...); err != nil {
		return nil, err
	}
	if cfg.Cache != "" {
		if err := outfile.NotAnInput(cfg.Cache, append([]string{cfg.TasksFile, cfg.PolicyFile}, cfg.CacheFrom...)...); err != nil {
			return nil, err
		}
	}
	if err := cfg.resolve(); err != nil {
		return nil, err
	}
	// A failed episode stops the others at once: their calls would be
	// paid for episodes the run drops.
	parent := cmp.Or(cfg.Options.Context, context.Background())
	ctx, cancel := context.WithCancelCause(parent)
	defer cancel(nil)
	cfg.Options.Context = ctx
	client, err := NewClient(cfg.Client)
	if err != nil {
		return nil, err
	}
	e, err := NewEnv(client, cfg.Tasks, cfg.Options)
	if err != nil {
		return nil, err
	}
	if err := outfile.Check(cfg.Out); err != nil {
		return nil, err
	}
	lock, err := outfile.TryLock(cfg.Out)
	if err != nil {
		return nil, err
	}
	defer lock.Unlock()
	if cfg.Cache != "" {
		cache, err := openCaches(cfg.Cache, cfg.CacheFrom)
		if err != nil {
			return nil, err
		}
		defer cache.Close()
		client.cfg.Cache = cache
	}
	p := collectPlan{policy: cfg.Policy.Name(), seed: cfg.Seed, source: e.Name(), agents: e.opts.Agents,
		rounds: cfg.Rounds, episodes: cfg.Episodes, tasks: cfg.Tasks}
	if err := p.shard(cfg, client, e); err != nil {
		return nil, err
	}
	sp, kept, err := p.open(cfg)
	if err != nil {
		return nil, err
	}
	c := &Collection{Model: client.cfg.Model, Kept: kept, out: cfg.Out, policy: p.policy,
		tasks: len(p.play), episodes: cfg.Episodes, rounds: cfg.Rounds}
	todo := p.remaining()
	if len(todo) == 0 {
		c.Stats, c.Endpoints = client.Stats(), client.Endpoints()
		return c, p.settle(cfg, c, sp)
	}
	progress := progressOf(cfg, client)
	opts := env.RunOptions{Tasks: todo, Episodes: cfg.Episodes, Rounds: cfg.Rounds, Seed: cfg.Seed,
		Greedy: cfg.Greedy, Workers: client.cfg.Concurrency, Progress: progress, Context: ctx, Unordered: true,
		Skip: func(task, ep int) bool { return p.done[env.EpisodeID(p.policy, p.seed, p.tasks[task].ID, ep)] }}
	if progress != nil {
		progress(0, p.missing())
	}
	err = env.Play(e, cfg.Policy, opts, func(ep *data.Episode) error {
		if err := sp.Add(ep, true); err != nil {
			return err
		}
		c.Written++
		return nil
	})
	if err != nil {
		cancel(err)
	}
	c.Stats, c.Endpoints = client.Stats(), client.Endpoints()
	if client.cfg.Cache != nil {
		cs := client.cfg.Cache.Stats()
		c.Cache = &cs
	}
	if n := c.Stats.NullContent; n > 0 && cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "collect: warning: %d of %d answers had null content, recorded as empty replies (is the model served with a chat template? does it put its reply elsewhere?)\n", n, c.Stats.Requests)
	}
	if err != nil {
		return c, p.stopped(cfg, c, sp, err)
	}
	return c, p.settle(cfg, c, sp)
}

// openCaches opens the cache at path to write and those of from to read.
func openCaches(path string, from []string) (*Cache, error) {
	c, err := OpenCache(path)
	if err != nil {
		return nil, err
	}
	for _, f := range from {
		if err := c.AddReadOnly(f); err != nil {
			c.Close()
			return nil, err
		}
	}
	return c, nil
}

// settle writes Out from the spool in task order, tallying the episodes,
// and removes the spool.
func (p *collectPlan) settle(cfg CollectConfig, c *Collection, sp *data.Spool) error {
	if _, err := sp.WriteOrdered(cfg.Out, p.ids(), p.tally.Add); err != nil {
		sp.Close()
		return fmt.Errorf("%w (every finished episode is kept in %s: resume to write %s)", err, sp.Path(), cfg.Out)
	}
	c.Result = p.tally.Result()
	return sp.Remove()
}

// progressOf is cfg.Progress followed, with several endpoints, by
// cfg.Endpoints when their state changed.
func progressOf(cfg CollectConfig, client *Client) func(done, total int) {
	if cfg.Endpoints == nil || len(client.pool.eps) < 2 {
		return cfg.Progress
	}
	var mu sync.Mutex
	last := ""
	return func(done, total int) {
		if cfg.Progress != nil {
			cfg.Progress(done, total)
		}
		h := client.Health()
		mu.Lock()
		defer mu.Unlock()
		if h != last {
			last = h
			cfg.Endpoints(h)
		}
	}
}

// stopped ends a collection that failed with err: Out and the spool are
// left as they were when nothing was collected; otherwise Out is written
// from the spool in task order (settle), with the episodes it holds.
func (p *collectPlan) stopped(cfg CollectConfig, c *Collection, sp *data.Spool, err error) error {
	if errors.Is(err, context.Canceled) {
		err = errors.New("interrupted")
	}
	if c.Written+c.Kept == 0 {
		sp.Remove() // nothing in it
		return err
	}
	hint := ""
	if cfg.Hint != "" {
		hint = "; " + cfg.Hint
	}
	return errors.Join(fmt.Errorf("%w (kept %d episodes in %s, %d of them from this run%s; %d requests, %d failed)",
		err, c.Written+c.Kept, cfg.Out, c.Written, hint, c.Stats.Requests, c.Stats.Failures), p.settle(cfg, c, sp))
}

// collectPlan is what one collection plays and, on resume, what Out
// already holds.
type collectPlan struct {
	policy, source string
	seed           uint64
	agents, rounds int
	episodes       int
	tasks          []Task
	play           []int           // the indices of the tasks to play (a shard's)
	done           map[string]bool // episode ids already in the output
	tally          *env.Tally
}

// open opens the spool beside Out. Without Resume, Out and a spool left
// by a killed run are refused unless Overwrite (which drops them). With
// Resume, the spool's episodes and Out's are kept: Out's are added to the
// spool (those it lacks), so that the spool holds every episode kept; Out
// stays as it was until settle replaces it.
func (p *collectPlan) open(cfg CollectConfig) (*data.Spool, int64, error) {
	p.done = map[string]bool{}
	p.tally = &env.Tally{Policy: p.policy}
	out, spool := cfg.Out, data.SpoolPath(cfg.Out)
	if !cfg.Resume {
		_, outErr := os.Lstat(out)
		sfi, spErr := os.Lstat(spool)
		switch {
		case cfg.Overwrite:
			if spErr == nil {
				if err := os.Remove(spool); err != nil {
					return nil, 0, err
				}
			}
		case outErr == nil:
			return nil, 0, fmt.Errorf("%s %w", out, ErrExists)
		case spErr == nil && sfi.Size() > 0:
			return nil, 0, errmark.Mark(fmt.Errorf("%s was left mid-way: %s holds its finished episodes", out, spool), ErrMidway)
		}
		sp, _, err := data.OpenSpool(spool, cfg.MaxLineBytes, nil)
		return sp, 0, err
	}
	want := p.want()
	check := p.keep(want)
	sp, info, err := data.OpenSpool(spool, cfg.MaxLineBytes, check)
	if err != nil {
		return nil, 0, errmark.Mark(err, ErrResume)
	}
	if info.Torn && cfg.Log != nil {
		fmt.Fprintf(cfg.Log, "collect: dropped the torn last record of %s\n", spool)
	}
	if _, err := os.Lstat(out); err == nil {
		if err := p.fold(cfg, sp, check); err != nil {
			sp.Close()
			return nil, 0, errmark.Mark(err, ErrResume)
		}
	}
	return sp, int64(sp.Len()), nil
}

// fold adds Out's episodes the spool lacks to it (one sync at the end: Out
// keeps them until the spool has).
func (p *collectPlan) fold(cfg CollectConfig, sp *data.Spool, check func(*data.Episode) error) error {
	r, err := data.Open([]string{cfg.Out}, data.ReaderOptions{MaxLineBytes: cfg.MaxLineBytes, KeepErrors: -1})
	if err != nil {
		return err
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return sp.Sync()
		}
		var re *data.RecordError
		if errors.As(err, &re) && re.Torn {
			if cfg.Log != nil {
				fmt.Fprintf(cfg.Log, "collect: dropped the torn last record of %s (%s)\n", cfg.Out, re)
			}
			continue
		}
		if err != nil {
			return fmt.Errorf("%w (the file holds a record its writer would not write)", err)
		}
		if rec.Episode == nil {
			return fmt.Errorf("%s: a decision record: not a collection's output", rec.Pos)
		}
		if sp.Has(rec.Episode.ID) {
			continue // added by a run killed after writing Out, before removing the spool
		}
		if err := check(rec.Episode); err != nil {
			return fmt.Errorf("%s: %w", rec.Pos, err)
		}
		if err := sp.Add(rec.Episode, false); err != nil {
			return err
		}
	}
}

// ids are the plan's episode ids in task order, then episode order: the
// order of Out.
func (p *collectPlan) ids() []string {
	ids := make([]string, 0, len(p.play)*p.episodes)
	for _, k := range p.play {
		for e := range p.episodes {
			ids = append(ids, env.EpisodeID(p.policy, p.seed, p.tasks[k].ID, e))
		}
	}
	return ids
}

// missing is the number of the plan's episodes still to play.
func (p *collectPlan) missing() int {
	return len(p.play)*p.episodes - len(p.done)
}

// want is the set of the plan's episode ids.
func (p *collectPlan) want() map[string]bool {
	want := map[string]bool{}
	for _, k := range p.play {
		t := p.tasks[k]
		for e := range p.episodes {
			want[env.EpisodeID(p.policy, p.seed, t.ID, e)] = true
		}
	}
	return want
}

// keep checks an episode of the output being resumed and marks it done.
func (p *collectPlan) keep(want map[string]bool) func(*data.Episode) error {
	return func(ep *data.Episode) error {
		switch {
		case !want[ep.ID]:
			return errmark.Mark(fmt.Errorf("episode %q is not one of this collection's (policy %s, seed %d, %d tasks × %d episodes)",
				ep.ID, p.policy, p.seed, len(p.play), p.episodes), ErrForeign)
		case p.done[ep.ID]:
			return fmt.Errorf("episode %q appears twice", ep.ID)
		case ep.Source != p.source:
			return fmt.Errorf("episode %q comes from %s, this run from %s", ep.ID, ep.Source, p.source)
		case ep.Agents != p.agents || len(ep.Rounds) != p.rounds+1:
			return fmt.Errorf("episode %q has %d agents and %d rounds, this run %d and %d", ep.ID, ep.Agents, len(ep.Rounds)-1, p.agents, p.rounds)
		}
		p.done[ep.ID] = true
		return nil
	}
}

// remaining lists the tasks with episodes still to play.
func (p *collectPlan) remaining() []int {
	todo := []int{}
	for _, k := range p.play {
		t := p.tasks[k]
		for e := range p.episodes {
			if !p.done[env.EpisodeID(p.policy, p.seed, t.ID, e)] {
				todo = append(todo, k)
				break
			}
		}
	}
	return todo
}
