package env

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
)

// DefaultRounds is the number of deliberation rounds R after round 0 (the
// paper's default).
const DefaultRounds = 3

// RunOptions says which episodes Play plays. The zero value plays one
// episode of every task with three rounds, seed 0, sampling actions.
type RunOptions struct {
	// Tasks lists the task numbers to play, in order; nil plays the first
	// NumTasks tasks of the Env.
	Tasks []int
	// NumTasks limits the tasks when Tasks is nil; 0 means all.
	NumTasks int
	// Episodes is the number of sampled episodes per task (they compete in
	// one SoftRankPO group); 0 means 1.
	Episodes int
	// Rounds is the number of deliberation rounds after round 0; 0 means
	// DefaultRounds. A task of a TaskRounder Env plays at most its own
	// recorded rounds (RoundsOf).
	Rounds int
	// Seed determines every episode: episode e of task k draws from its
	// own streams seeded by (Seed, k, e), whatever the scheduling.
	Seed uint64
	// Greedy takes each policy's most probable action instead of sampling.
	Greedy bool
	// Workers is the number of episodes played at once; 0 means
	// GOMAXPROCS. The output is the same for any value. With more than
	// one, the Env's Start and the Policy's Probs (or ProbsBatch) are called concurrently.
	Workers int
	// Batch is the number of episodes a worker plays in lockstep, round by
	// round, asking the policy for all their decisions of a round in one
	// metapolicy.BatchPolicy call (one forward pass of a learned policy);
	// 0 means DefaultBatch, 1 plays one episode at a time. On an IOBound Env
	// it is 1 whatever is asked. The output is the same for any value: each
	// episode draws from its own streams in its own order.
	Batch int
	// Progress, when set, is called after each episode is delivered, from
	// the goroutine that called Play.
	Progress func(done, total int)
	// Context, when set, stops Play with its error before the next
	// episode is delivered (a signal during a long evaluation).
	Context context.Context
	// Unordered delivers each episode as soon as it ends, whatever the
	// episodes before it in task order are doing, and plays one episode
	// per job: a slow episode holds one worker, never the others, and at
	// most Workers episodes are in memory. The episodes are the same as
	// ordered (each draws from its own streams); only their order differs,
	// and Index restores it. A writer that must keep every finished
	// episode through a crash wants this (env/llm's Collect).
	Unordered bool
	// Skip, when set, leaves out episode ep of the task numbered task (an
	// episode a resumed run already holds): it is not played, and the
	// others draw what they would have drawn.
	Skip func(task, ep int) bool
}

// Index is the place of episode ep of the k-th task of the run
// (RunOptions.Tasks, or the first tasks) in the order Play delivers
// episodes when ordered: task order, then episode order.
func Index(k, ep, episodes int) int { return k*max(episodes, 1) + ep }

// DefaultBatch is the number of episodes a worker plays in lockstep when
// RunOptions.Batch is 0: enough rows for the batched forward pass to pay
// (nn.LogitsRows gains little past a few dozen), few enough that a worker's
// episodes stay small in memory and both workers get some.
const DefaultBatch = 64

// plan is RunOptions checked against an Env.
type plan struct {
	tasks    []int
	episodes int
	rounds   int
	workers  int
	batch    int
}

// runOptions is the scope of RunOptions' settings out of range
// (*errmark.Setting, keyed tasks, episodes, rounds, workers, batch).
const runOptions = "env: run options"

// ErrTasks marks a run that asks for more tasks than its Env has (the
// *errmark.Setting keyed tasks), so that a caller can say how to get more.
var ErrTasks = errors.New("more tasks asked than the environment has")

func (o *RunOptions) plan(e Env) (plan, error) {
	p := plan{episodes: o.Episodes, rounds: o.Rounds, workers: o.Workers, batch: o.Batch}
	n := e.NumTasks()
	switch {
	case o.NumTasks < 0:
		return p, errmark.Bad(runOptions, "tasks", o.NumTasks, "want ≥ 0 (0: all)")
	case o.Episodes < 0:
		return p, errmark.Bad(runOptions, "episodes", o.Episodes, "want ≥ 0 (0: 1)")
	case o.Rounds < 0:
		return p, errmark.Bad(runOptions, "rounds", o.Rounds, fmt.Sprintf("want ≥ 0 (0: %d)", DefaultRounds))
	case o.Workers < 0:
		return p, errmark.Bad(runOptions, "workers", o.Workers, "want ≥ 0 (0: one per CPU)")
	case o.Batch < 0:
		return p, errmark.Bad(runOptions, "batch", o.Batch, fmt.Sprintf("want ≥ 0 (0: %d)", DefaultBatch))
	case o.Tasks != nil && o.NumTasks != 0:
		return p, fmt.Errorf("env: run options: both a task list and a task count")
	case o.NumTasks > n:
		return p, errmark.Mark(errmark.Bad(runOptions, "tasks", o.NumTasks, fmt.Sprintf("%s has %d tasks", e.Name(), n)), ErrTasks)
	}
	if o.Tasks != nil {
		for i, t := range o.Tasks {
			if t < 0 || t >= n {
				return p, fmt.Errorf("env: run options: tasks[%d]: task %d outside [0, %d)", i, t, n)
			}
		}
		p.tasks = o.Tasks
	} else {
		k := n
		if o.NumTasks > 0 {
			k = o.NumTasks
		}
		p.tasks = make([]int, k)
		for i := range p.tasks {
			p.tasks[i] = i
		}
	}
	if p.episodes == 0 {
		p.episodes = 1
	}
	if p.rounds == 0 {
		p.rounds = DefaultRounds
	}
	if p.workers == 0 {
		p.workers = runtime.GOMAXPROCS(0)
	}
	if p.batch == 0 {
		p.batch = DefaultBatch
	}
	if ioBound(e) {
		p.batch = 1
	}
	// Every worker gets a share: no batch larger than the episodes over the workers.
	total := len(p.tasks) * p.episodes
	p.batch = max(1, min(p.batch, (total+p.workers-1)/p.workers))
	return p, nil
}

// Play plays policy pol on e and hands each episode to emit, in task order
// (then episode order) whatever the number of workers, so that the same
// options give the same stream. Memory does not grow with the number of
// episodes. The episode passed to emit is the caller's to keep. Play stops
// at the first error, from the Env, the policy or emit.
//
// In each round every agent's action is chosen from the previous round's
// states (simultaneously), sampled from pol (or its mode when Greedy), and
// recorded with its log-probability. The observation's History holds
// every earlier round's answers. An agent of a metapolicy.SelfRefiner
// policy that refines is given a copy of the previous round in which the
// peers' turns are blank; on an Env that implements PeersAlwaysSeen such a
// policy is refused.
func Play(e Env, pol metapolicy.Policy, opts RunOptions, emit func(*data.Episode) error) error {
	p, err := opts.plan(e)
	if err != nil {
		return err
	}
	if selfRefines(pol) && peersAlwaysSeen(e) {
		return fmt.Errorf("env: %s cannot play policy %s: its agents refine without seeing the peers, "+
			"and every refine of this environment reflects them (it would be a debate under another name)", e.Name(), pol.Name())
	}
	if opts.Unordered || opts.Skip != nil {
		return playEach(e, pol, p, &opts, emit)
	}
	total := len(p.tasks) * p.episodes
	chunks := (total + p.batch - 1) / p.batch
	bp := metapolicy.Batch(pol)
	play := func(j int) []played {
		ks := make([]int, 0, p.batch)
		for k := j * p.batch; k < min(total, (j+1)*p.batch); k++ {
			ks = append(ks, k)
		}
		return playBatch(e, pol, bp, p, ks, &opts)
	}
	one := deliverTo(total, &opts, emit)
	deliver := func(_ int, eps []played) error {
		for _, r := range eps {
			if err := one(r); err != nil {
				return err
			}
		}
		return nil
	}
	if p.workers == 1 || chunks <= 1 {
		for j := range chunks {
			if err := deliver(j+1, play(j)); err != nil {
				return err
			}
		}
		return nil
	}
	return runParallel(chunks, p.workers, play, deliver)
}

// deliverTo returns what hands each played episode on, in the order it is
// given: its error, a stop asked for (opts.Context), emit, then progress
// out of total; the same whether Run plays batches in order or one
// episode per job.
func deliverTo(total int, opts *RunOptions, emit func(*data.Episode) error) func(played) error {
	done := 0
	return func(r played) error {
		if r.err != nil {
			return r.err
		}
		done++
		if opts.Context != nil {
			if err := opts.Context.Err(); err != nil {
				return fmt.Errorf("env: stopped after %d of %d episodes: %w", done-1, total, err)
			}
		}
		if err := emit(r.ep); err != nil {
			return err
		}
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
		return nil
	}
}

// playEach plays the episodes not skipped one per job; with
// opts.Unordered it delivers each as it ends, else in task order.
func playEach(e Env, pol metapolicy.Policy, p plan, opts *RunOptions, emit func(*data.Episode) error) error {
	var ks []int // the episodes to play, by place in task-then-episode order
	for j, task := range p.tasks {
		for ep := range p.episodes {
			if opts.Skip == nil || !opts.Skip(task, ep) {
				ks = append(ks, j*p.episodes+ep)
			}
		}
	}
	total := len(ks)
	bp := metapolicy.Batch(pol)
	play := func(i int) played { return playBatch(e, pol, bp, p, ks[i:i+1], opts)[0] }
	one := deliverTo(total, opts, emit)
	deliver := func(_ int, r played) error { return one(r) }
	if total == 0 {
		return nil
	}
	if !opts.Unordered {
		if p.workers == 1 {
			for i := range total {
				if err := deliver(i+1, play(i)); err != nil {
					return err
				}
			}
			return nil
		}
		return runParallel(total, p.workers, play, deliver)
	}
	// Unordered: an episode that ended is handed over even when the run is
	// stopping (its calls are paid); only new episodes stop.
	done := 0
	return runUnordered(total, p.workers, play, func(_ int, r played) error {
		if r.err != nil {
			return r.err
		}
		done++
		if err := emit(r.ep); err != nil {
			return err
		}
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
		if opts.Context != nil {
			if err := opts.Context.Err(); err != nil {
				return fmt.Errorf("env: stopped after %d of %d episodes: %w", done, total, err)
			}
		}
		return nil
	})
}

// runUnordered plays items 0..total-1 on workers goroutines and delivers
// each as it ends. A worker takes the next item as soon as it has handed
// over its last, so the others stay busy whatever one item does, and at
// most workers items are in play or waiting. After the first error of
// deliver no item starts; the ones in play end and are delivered (their
// errors dropped), and the first error is returned.
func runUnordered[R any](total, workers int, play func(int) R, deliver func(int, R) error) error {
	type result struct {
		k int
		r R
	}
	jobs := make(chan int)
	results := make(chan result)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		for k := range total {
			select {
			case jobs <- k:
			case <-quit:
				return
			}
		}
	})
	var players sync.WaitGroup
	for range min(workers, total) {
		players.Go(func() {
			for k := range jobs {
				results <- result{k, play(k)}
			}
		})
	}
	go func() {
		players.Wait()
		close(results)
	}()
	var first error
	for r := range results {
		if err := deliver(r.k+1, r.r); err != nil && first == nil {
			first = err
			close(quit)
		}
	}
	wg.Wait()
	return first
}

// played is one episode's outcome: the episode, or the error that ended it.
type played struct {
	ep  *data.Episode
	err error
}

// Collect plays like Play and returns all episodes.
func Collect(e Env, pol metapolicy.Policy, opts RunOptions) ([]data.Episode, error) {
	var eps []data.Episode
	err := Play(e, pol, opts, func(ep *data.Episode) error {
		eps = append(eps, *ep)
		return nil
	})
	return eps, err
}

// runParallel plays items 0..total-1 (batches of episodes) on workers
// goroutines and delivers them in order. At most a window of items is in
// flight or waiting, so memory stays bounded.
func runParallel[R any](total, workers int, play func(int) R, deliver func(int, R) error) error {
	type result struct {
		k int
		r R
	}
	window := 4 * workers
	jobs := make(chan int)
	results := make(chan result, window)
	slots := make(chan struct{}, window)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(jobs)
		for k := range total {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			select {
			case jobs <- k:
			case <-stop:
				return
			}
		}
	})
	for range workers {
		wg.Go(func() {
			for k := range jobs {
				r := play(k)
				select {
				case results <- result{k, r}:
				case <-stop:
					return
				}
			}
		})
	}
	err := func() error {
		pending := make(map[int]result, window)
		for next := 0; next < total; {
			r := <-results
			pending[r.k] = r
			for {
				r, ok := pending[next]
				if !ok {
					break
				}
				delete(pending, next)
				if err := deliver(next+1, r.r); err != nil {
					return err
				}
				next++
				<-slots
			}
		}
		return nil
	}()
	close(stop)
	wg.Wait()
	return err
}

// Stream tags of an episode's two random streams: the Env draws from one,
// the policy's sampling from the other, so that policies that act alike
// see the same environment draws (common random numbers).
const (
	streamEnv    = 0
	streamPolicy = 1
)

// episodeRNG returns the stream of episode ep of task for tag.
func episodeRNG(seed uint64, task, ep int, tag uint64) *rand.Rand {
	h := mix(mix(mix(0x6d70_6466_0000_0001^uint64(task))^uint64(ep)) ^ tag)
	return rand.New(rand.NewPCG(seed, h))
}

// mix is the splitmix64 finaliser.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// EpisodeID is the id Play gives episode ep of the task whose id is task,
// played by the policy named policy under seed: one id per (policy, seed,
// task, episode), so that a resumed run can tell which episodes an output
// already holds.
func EpisodeID(policy string, seed uint64, task string, ep int) string {
	return policy + "/s" + strconv.FormatUint(seed, 10) + "/" + task + "/" + strconv.Itoa(ep) // "%s/s%d/%s/%d", without fmt per episode
}

// playBatch plays episodes ks (numbers in task-then-episode order) in
// lockstep: every round, the decisions of all the episodes still going go to
// the policy in one ProbsBatch call; then each episode samples its agents'
// actions from its own stream, in agent order, and steps its game. Each
// episode sees exactly the calls and draws it would see played alone.
func playBatch(e Env, pol metapolicy.Policy, bp metapolicy.BatchPolicy, p plan, ks []int, opts *RunOptions) []played {
	out := make([]played, len(ks))
	eps := make([]*episode, len(ks))
	last := 0
	for j, k := range ks {
		ep, err := startEpisode(e, pol, p.tasks[k/p.episodes], k%p.episodes, p.rounds, opts)
		if err != nil {
			out[j].err = err
			continue
		}
		eps[j] = ep
		last = max(last, ep.rounds)
	}
	var obs []metapolicy.Observation
	var who []int      // the episode (index into eps) of each row
	var rowErr []error // the policy's error of each row, if any
	var probs [][metapolicy.NumActions]float64
	for t := 1; t <= last; t++ {
		obs, who = obs[:0], who[:0]
		for j, ep := range eps {
			if ep == nil || t > ep.rounds {
				continue
			}
			obs = ep.observe(t, obs)
			for len(who) < len(obs) {
				who = append(who, j)
			}
		}
		if len(obs) == 0 {
			break
		}
		if cap(probs) < len(obs) {
			probs = make([][metapolicy.NumActions]float64, len(obs))
		}
		probs = probs[:len(obs)]
		rowErr = append(rowErr[:0], make([]error, len(obs))...)
		// Ask for every row; a failing row fails its episode only, and the
		// batch goes on from the next row.
		for from := 0; from < len(obs); {
			err := bp.ProbsBatch(probs[from:], obs[from:])
			if err == nil {
				break
			}
			bad := len(obs) - from // an error without a row: every row left
			var re *metapolicy.RowError
			if errors.As(err, &re) && re.Row >= 0 && re.Row < len(obs)-from {
				bad, err = 1, re.Err
				from += re.Row
			}
			for r := from; r < from+bad; r++ {
				rowErr[r] = eps[who[r]].policyError(t, obs[r].Self, err)
			}
			from += bad
		}
		for r := 0; r < len(obs); {
			j := who[r]
			n := eps[j].n
			if out[j].err = eps[j].act(t, probs[r:r+n], rowErr[r:r+n], opts.Greedy); out[j].err != nil {
				eps[j] = nil
			}
			r += n
		}
	}
	for j, ep := range eps {
		if ep != nil && out[j].err == nil {
			out[j].ep = ep.out
		}
	}
	return out
}

// episode is one episode in play.
type episode struct {
	e       Env
	pol     metapolicy.Policy
	g       Game
	prng    *rand.Rand
	id      string
	ep      int
	n       int
	rounds  int
	out     *data.Episode
	states  []metapolicy.AgentState
	actions []metapolicy.Action
	logps   []float64
	history [][]string
}

// startEpisode starts episode ep of task and plays its round 0.
func startEpisode(e Env, pol metapolicy.Policy, task, ep, rounds int, opts *RunOptions) (*episode, error) {
	rounds = RoundsOf(e, task, rounds)
	g, err := e.Start(task, episodeRNG(opts.Seed, task, ep, streamEnv))
	if err != nil {
		return nil, fmt.Errorf("env: %s: task %d: %w", e.Name(), task, err)
	}
	id, question, gold := g.Task()
	n := g.Agents()
	s := &episode{e: e, pol: pol, g: g, prng: episodeRNG(opts.Seed, task, ep, streamPolicy), id: id, ep: ep, n: n, rounds: rounds}
	if n < 2 {
		return nil, fmt.Errorf("%s: %d agents, want ≥ 2", s.where(0), n)
	}
	if n > metapolicy.MaxAgents {
		return nil, fmt.Errorf("%s: %d agents, more than the %d a team may hold", s.where(0), n, metapolicy.MaxAgents)
	}
	turns, err := g.Initial()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.where(0), err)
	}
	if len(turns) != n {
		return nil, fmt.Errorf("%s: %d turns, want %d", s.where(0), len(turns), n)
	}
	for i := range turns {
		turns[i].Action, turns[i].LogProb = nil, nil
	}
	s.out = &data.Episode{
		Kind:     data.KindEpisode,
		ID:       EpisodeID(pol.Name(), opts.Seed, id, ep),
		Task:     id,
		Question: question,
		Gold:     gold,
		Source:   SourceOf(e, task),
		Policy:   pol.Name(),
		Agents:   n,
		Rounds:   make([]data.Round, 1, rounds+1),
	}
	s.out.Rounds[0].Turns = turns
	s.states = make([]metapolicy.AgentState, n)
	s.actions = make([]metapolicy.Action, n)
	s.logps = make([]float64, n)
	s.history = make([][]string, 0, rounds)
	return s, nil
}

func (s *episode) where(round int) string {
	return fmt.Sprintf("env: %s: task %s: episode %d: round %d", s.e.Name(), s.id, s.ep, round)
}

func (s *episode) policyError(t, agent int, err error) error {
	return fmt.Errorf("%s: agent %d: policy %s: %w", s.where(t), agent, s.pol.Name(), err)
}

// observe appends every agent's observation of round t, which sees the
// previous round's states and every earlier round's answers.
func (s *episode) observe(t int, obs []metapolicy.Observation) []metapolicy.Observation {
	prev := s.out.Rounds[t-1].Turns
	answers := make([]string, s.n)
	for i := range prev {
		s.states[i] = prev[i].State()
		answers[i] = prev[i].Answer
	}
	s.history = append(s.history, answers)
	for i := range s.n {
		obs = append(obs, metapolicy.Observation{Self: i, Round: t, Rounds: s.rounds, Agents: s.states, History: s.history})
	}
	return obs
}

// act chooses every agent's action of round t from its distribution (its
// mode when greedy, else a draw of the episode's policy stream, in agent
// order; errs[i] is the policy's error for agent i) and steps the game;
// actions within a round are simultaneous.
func (s *episode) act(t int, probs [][metapolicy.NumActions]float64, errs []error, greedy bool) error {
	for i := range s.n {
		if errs[i] != nil { // the policy failed on this agent: the episode stops here, as played alone
			return errs[i]
		}
		var a metapolicy.Action
		var lp float64
		if greedy {
			a, lp = metapolicy.GreedyFrom(&probs[i])
		} else {
			a, lp = metapolicy.SampleFrom(&probs[i], s.prng)
		}
		if !a.Valid() || math.IsNaN(lp) || lp > 1e-9 || math.IsInf(lp, 0) {
			return fmt.Errorf("%s: agent %d: policy %s chose %v with log-probability %v",
				s.where(t), i, s.pol.Name(), a, lp)
		}
		s.actions[i], s.logps[i] = a, min(lp, 0)
	}
	prev := s.out.Rounds[t-1].Turns
	cur := make([]data.Turn, s.n)
	for i := range s.n {
		seen := prev
		if selfRefines(s.pol) && s.actions[i] == metapolicy.Refine {
			seen = alone(prev, i)
		}
		turn, err := s.g.Step(t, i, s.actions[i], seen)
		if err != nil {
			return fmt.Errorf("%s: agent %d: %s: %w", s.where(t), i, s.actions[i], err)
		}
		turn.Action, turn.LogProb = ptr(s.actions[i]), ptr(s.logps[i])
		cur[i] = turn
	}
	s.out.Rounds = append(s.out.Rounds, data.Round{Turns: cur})
	return nil
}

// selfRefines reports whether pol's agents refine without seeing the peers.
func selfRefines(pol metapolicy.Policy) bool {
	sr, ok := pol.(metapolicy.SelfRefiner)
	return ok && sr.SelfRefine()
}

// alone returns a copy of prev with every turn but self's blank.
func alone(prev []data.Turn, self int) []data.Turn {
	out := make([]data.Turn, len(prev))
	out[self] = prev[self]
	return out
}

func ptr[T any](v T) *T { return &v }
