package replay

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
)

// DefaultConcedeTokens is what a concede costs unless WithConcedeTokens
// says otherwise: a short message naming the adopted answer, no reasoning.
const DefaultConcedeTokens = 20

// Env replays imported transcripts: task i is question i, in the order
// given; round 0 is the recorded round 0, and each later round plays what
// the policy chose from the recording (the game's Step says how). Every
// agent refining every round reproduces the recorded debate exactly, and
// every agent persisting reproduces round 0; the package tests check both
// on the shared transcripts against corpus.Baselines (package data/corpus).
// An Env is read-only after New and each Start makes a fresh game holding
// the episode's state (how many revisions each agent has used), so
// episodes may run concurrently; one game's Steps may not.
//
// Baselines: Self-Refine (the refine heuristic) cannot be replayed, as
// every recorded revision was written after seeing the peers — it would be
// the debate under another name — so the Env is env.PeersAlwaysSeen:
// env.Play refuses a Self-Refine policy on it and env.Baselines leaves
// refine out. majority, debate, gate and until-consensus replay without
// approximation: in each the whole team refines in the same rounds, from
// the first, so every revision meets the peers it was written after (gate
// is round 0 or the recorded debate; until-consensus is a prefix of it).
//
// The approximation: a recorded revision was written after seeing the
// recorded peers of the round before it — who all refined in the
// recording — not the peers this replay shows it. When a policy makes some
// agents persist or concede, or delays a refine, a refining agent still
// gives the revision it gave after seeing the recorded peers of that
// revision's round: the replay ignores how other peers would have changed
// that answer. An agent's k-th revision also saw the recorded peers'
// (k−1)-th answers, which need not be what the replayed peers hold. And it
// cannot produce an answer nobody recorded. Results on replay therefore
// measure how well a policy chooses among recorded behaviours (keep, take
// the next revision, follow the peers), a model-free proxy for, not an
// equal of, running the policy with a live model (env/llm).
type Env struct {
	name string
	qs   []transcript.Question
	// models[i] is qs[i].AgentModels(), worked out once rather than at
	// every Start (a file name parse per game was a tenth of a study's
	// CPU); games only read it.
	models  [][]string
	concede int
	text    bool
	critic  bool
	// uncritiqued: Load read the questions without the text critic (a
	// third of reading them), which apply reads when the critic is
	// turned on (WithCritic, now or in With).
	uncritiqued bool
	named       bool // WithName: every task's source is name
}

var _ env.Env = (*Env)(nil)

// Option configures an Env; it returns an error for a value it refuses.
type Option func(*Env) error

// WithConcedeTokens sets the token cost of a concede (default
// DefaultConcedeTokens); n ≥ 0.
func WithConcedeTokens(n int) Option {
	return func(e *Env) error {
		if n < 0 {
			return fmt.Errorf("replay: concede tokens %d, want ≥ 0", n)
		}
		e.concede = n
		return nil
	}
}

// WithName sets the name episodes carry as their source (default
// "replay:" and the source files' base names, comma-separated).
func WithName(name string) Option {
	return func(e *Env) error {
		if name == "" {
			return fmt.Errorf("replay: empty name")
		}
		e.name, e.named = name, true
		return nil
	}
}

// WithText keeps the recorded response texts in the turns (default off:
// episodes stay small).
func WithText(on bool) Option {
	return func(e *Env) error { e.text = on; return nil }
}

// WithCritic fills each recorded turn's missing Confidence with the
// critic's confidence read from its text (transcript.Answer.Critic,
// answer.Critic), when the text gives the critic something to check
// (default off: confidence is missing everywhere, as the transcripts have
// none). A conceding agent wrote no reasoning of its own: its confidence
// stays missing. The team answer's and the concede target's ties then go
// to the answer the critic trusts more.
func WithCritic(on bool) Option {
	return func(e *Env) error { e.critic = on; return nil }
}

// New replays the given questions. Every question needs two or more agents,
// each with a round-0 answer (transcript.Each guarantees it). The Env keeps
// qs; the caller must not change it afterwards.
func New(qs []transcript.Question, opts ...Option) (*Env, error) {
	e, err := newEnv(qs)
	if err != nil {
		return nil, err
	}
	if err := e.apply(opts); err != nil {
		return nil, err
	}
	return e, nil
}

// newEnv is New without options.
func newEnv(qs []transcript.Question) (*Env, error) {
	e := &Env{qs: qs, models: make([][]string, len(qs)), concede: DefaultConcedeTokens}
	var files []string
	for i := range qs {
		q := &qs[i]
		e.models[i] = q.AgentModels()
		if len(q.Agents) < 2 {
			return nil, fmt.Errorf("replay: question %d (%s#%d): %d agents, want ≥ 2", i, q.File, q.Index, len(q.Agents))
		}
		for k, as := range q.Agents {
			if len(as) == 0 {
				return nil, fmt.Errorf("replay: question %d (%s#%d): agent %d has no answer", i, q.File, q.Index, k)
			}
		}
		if len(files) == 0 || files[len(files)-1] != q.File {
			files = append(files, q.File)
		}
	}
	e.name = "replay:" + strings.Join(files, ",")
	return e, nil
}

// apply applies opts to e; when they turn the critic on over questions
// Load read without it, it reads it now (into copies: an Env e was made
// With from keeps its own).
func (e *Env) apply(opts []Option) error {
	for _, o := range opts {
		if err := o(e); err != nil {
			return err
		}
	}
	if e.critic && e.uncritiqued {
		e.qs, e.uncritiqued = critiqued(e.qs), false
	}
	return nil
}

// critiqued returns copies of qs with the critic read
// (transcript.Question.WithCritic), on up to GOMAXPROCS goroutines.
func critiqued(qs []transcript.Question) []transcript.Question {
	out := make([]transcript.Question, len(qs))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(qs)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(qs); i = int(next.Add(1) - 1) {
				out[i] = qs[i].WithCritic()
			}
		})
	}
	wg.Wait()
	return out
}

// Load reads transcript files (transcript.ReadFile with topts) and replays
// all their questions, in the given order. It returns the files' reports so
// that the caller can show how much was readable. The files are read on up
// to GOMAXPROCS goroutines (reading is most of a study's start); the result,
// and the error when files are bad (the first bad one in the given order),
// are those of reading them one after another. The text critic is read
// only if the Env plays with it (WithCritic, here or later in With), not
// while reading: a replay without it leaves every Answer.Critic nil.
func Load(paths []string, topts transcript.Options, opts ...Option) (*Env, []transcript.Report, error) {
	read := topts
	read.SkipCritic = true // read by apply only if the critic plays
	files := make([]*transcript.File, len(paths))
	var mu sync.Mutex // guards bad and err: the first bad file in order, its error
	bad, err := len(paths), error(nil)
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(paths)) {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				mu.Lock()
				past := i >= bad // files past a bad one are not needed
				mu.Unlock()
				if past {
					return
				}
				f, ferr := transcript.ReadFile(paths[i], read)
				mu.Lock()
				if files[i] = f; ferr != nil && i < bad {
					bad, err = i, ferr
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if err != nil {
		return nil, nil, err
	}
	var qs []transcript.Question
	var reps []transcript.Report
	for _, f := range files {
		qs = append(qs, f.Questions...)
		reps = append(reps, f.Report)
	}
	if len(qs) == 0 {
		return nil, reps, fmt.Errorf("replay: no questions in %s", transcript.Names(paths))
	}
	e, err := newEnv(qs)
	if err != nil {
		return nil, reps, err
	}
	e.uncritiqued = !topts.SkipCritic
	if err := e.apply(opts); err != nil {
		return nil, reps, err
	}
	return e, reps, nil
}

func (e *Env) Name() string { return e.name }

// TaskSource implements env.TaskSourcer: "replay:" and the base name of
// task's transcript file (the Name of a one-file replay), so that each
// episode says which file, and so which model (transcript.ParseName), it
// replays; the name WithName gave, when one was given.
func (e *Env) TaskSource(task int) string {
	if e.named {
		return e.name
	}
	return "replay:" + e.qs[task].File
}
func (e *Env) NumTasks() int { return len(e.qs) }

// Question returns task's question (as read: its answers' Critic is nil
// when Load read them for an Env that does not play with the critic).
func (e *Env) Question(task int) *transcript.Question { return &e.qs[task] }

// Rounds is the most deliberation rounds any task recorded: the number of
// rounds a run needs to reach every recorded answer.
func (e *Env) Rounds() int {
	n := 0
	for i := range e.qs {
		n = max(n, e.qs[i].Rounds())
	}
	return n
}

// TaskRounds implements env.TaskRounder: the deliberation rounds task
// recorded, after which a replay has no new answer to show.
func (e *Env) TaskRounds(task int) int { return e.qs[task].Rounds() }

// Start opens a task for one episode. Replay is deterministic: rng is not
// used.
func (e *Env) Start(task int, rng *rand.Rand) (env.Game, error) {
	if task < 0 || task >= len(e.qs) {
		return nil, fmt.Errorf("replay: task %d outside [0, %d)", task, len(e.qs))
	}
	q := &e.qs[task]
	return &game{e: e, q: q, used: make([]int, len(q.Agents)), models: e.models[task]}, nil
}

// Critic reports whether the text critic fills the missing confidences
// (WithCritic): whether the agents have a confidence a policy can read.
func (e *Env) Critic() bool { return e.critic }

// Unseeded implements env.Unseeded: Start does not use its stream.
func (e *Env) Unseeded() bool { return true }

// PeersAlwaysSeen implements env.PeersAlwaysSeen: every recorded revision
// was written after seeing the peers, so a replay cannot play Self-Refine.
func (e *Env) PeersAlwaysSeen() bool { return true }

// With returns a copy of e with more options applied (e is unchanged).
func (e *Env) With(opts ...Option) (*Env, error) {
	c := *e
	if err := c.apply(opts); err != nil {
		return nil, err
	}
	return &c, nil
}

// Subset returns an Env over the given tasks, in that order (for training on
// one side of a Split and evaluating on the other). Options carry over.
func (e *Env) Subset(tasks []int) (*Env, error) {
	qs := make([]transcript.Question, len(tasks))
	models := make([][]string, len(tasks))
	for i, t := range tasks {
		if t < 0 || t >= len(e.qs) {
			return nil, fmt.Errorf("replay: subset: task %d outside [0, %d)", t, len(e.qs))
		}
		qs[i], models[i] = e.qs[t], e.models[t]
	}
	s := *e
	s.qs, s.models = qs, models
	return &s, nil
}
