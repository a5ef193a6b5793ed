package llm

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/mpdf/mpdf/env"
)

// Options configures an Env. The zero value is three agents, the package's
// own answer reader, a judge call after every generated answer, concede
// without a call at DefaultConcedeTokens, and per-call seeds.
type Options struct {
	// Context bounds every call the Env makes; cancelling it makes a
	// pending Initial or Step return its error. nil means Background. (The
	// env.Game interface has no context argument, so it travels here.)
	Context context.Context
	// Agents is the team size N ≥ 2; 0 means 3.
	Agents int
	// Extract reads answers; nil means the answer package's rules
	// (answer.Read with the task's question), those of imported transcripts.
	Extract Extractor
	// Personas, when not empty, gives agent i the system message
	// Personas[i % len(Personas)]; "" sends none.
	Personas []string
	// ConcedeCall makes a conceding agent ask the model to restate the
	// adopted solution (the concede prompt) and run the judge on it;
	// its answer is the adopted one whatever it writes. By default a
	// concede makes no call: the agent takes the peer's solution as it is.
	ConcedeCall bool
	// ConcedeTokens is the cost of a concede without a call; 0 means
	// DefaultConcedeTokens, a negative value means 0.
	ConcedeTokens int
	// NoJudge skips the judge call (the same model grading each answer,
	// JudgePrompt): confidences are then missing.
	NoJudge bool
	// NoSeed sends no "seed" with the requests.
	NoSeed bool
}

// DefaultConcedeTokens is what a concede without a call costs: about the
// length of a short "I adopt agent k's answer" message, and the
// simulator's default concede cost.
const DefaultConcedeTokens = 20

// Env is a live deliberation environment: tasks answered by a model behind
// an OpenAI-compatible server. It implements env.Env, and is safe for
// concurrent use: several games may run at once, and a game's Step may be
// called for several agents of a round at once (the Client's concurrency
// limit bounds the requests).
type Env struct {
	c     *Client
	tasks []Task
	opts  Options
}

var _ env.Env = (*Env)(nil)

// NewEnv checks the tasks (as ReadTasks does) and returns an environment
// over them. tasks is copied, golds normalised.
func NewEnv(c *Client, tasks []Task, opts Options) (*Env, error) {
	if c == nil {
		return nil, fmt.Errorf("llm: nil client")
	}
	if len(tasks) == 0 {
		return nil, fmt.Errorf("llm: no tasks")
	}
	switch {
	case opts.Agents == 0:
		opts.Agents = 3
	case opts.Agents < 2:
		return nil, fmt.Errorf("llm: %d agents, want ≥ 2", opts.Agents)
	}
	switch {
	case opts.ConcedeTokens == 0:
		opts.ConcedeTokens = DefaultConcedeTokens
	case opts.ConcedeTokens < 0:
		opts.ConcedeTokens = 0
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	e := &Env{c: c, tasks: make([]Task, len(tasks)), opts: opts}
	seen := map[string]int{}
	for i, t := range tasks {
		if err := t.check(); err != nil {
			return nil, fmt.Errorf("llm: task %d: %w", i, err)
		}
		if prev, ok := seen[t.ID]; ok {
			return nil, fmt.Errorf("llm: task %d: id: %q repeats task %d", i, t.ID, prev)
		}
		seen[t.ID] = i
		e.tasks[i] = t
	}
	return e, nil
}

// Name is "openai:" and the model, the episodes' Source.
func (e *Env) Name() string { return "openai:" + e.c.cfg.Model }

// NumTasks is the number of tasks.
func (e *Env) NumTasks() int { return len(e.tasks) }

// Task returns task number i.
func (e *Env) Task(i int) Task { return e.tasks[i] }

// Client returns the client the Env calls, for its Stats.
func (e *Env) Client() *Client { return e.c }

// Start opens task number task. It draws one number from rng, from which
// every call of the game derives its seed (see Options.NoSeed).
func (e *Env) Start(task int, rng *rand.Rand) (env.Game, error) {
	if task < 0 || task >= len(e.tasks) {
		return nil, fmt.Errorf("llm: task %d outside [0, %d)", task, len(e.tasks))
	}
	if rng == nil {
		return nil, fmt.Errorf("llm: Start: nil rng")
	}
	return &game{e: e, t: e.tasks[task], seed: rng.Uint64()}, nil
}
