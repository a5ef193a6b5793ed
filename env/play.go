package env

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/mpdf/mpdf/data"
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
	// one, the Env's Start and the Policy's Probs are called concurrently.
	Workers int
	// Progress, when set, is called after each episode is delivered, from
	// the goroutine that called Play.
	Progress func(done, total int)
	// Context, when set, stops Play with its error before the next
	// episode is delivered (a signal during a long evaluation).
	Context context.Context
}

// plan is RunOptions checked against an Env.
type plan struct {
	tasks    []int
	episodes int
	rounds   int
	workers  int
}

func (o *RunOptions) plan(e Env) (plan, error) {
	p := plan{episodes: o.Episodes, rounds: o.Rounds, workers: o.Workers}
	n := e.NumTasks()
	switch {
	case o.NumTasks < 0 || o.Episodes < 0 || o.Rounds < 0 || o.Workers < 0:
		return p, fmt.Errorf("env: run options: negative count (tasks %d, episodes %d, rounds %d, workers %d)",
			o.NumTasks, o.Episodes, o.Rounds, o.Workers)
	case o.Tasks != nil && o.NumTasks != 0:
		return p, fmt.Errorf("env: run options: both a task list and a task count")
	case o.NumTasks > n:
		return p, fmt.Errorf("env: run options: %d tasks asked, %s has %d", o.NumTasks, e.Name(), n)
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
	total := len(p.tasks) * p.episodes
	play := func(k int) (*data.Episode, error) {
		return playEpisode(e, pol, p.tasks[k/p.episodes], k%p.episodes, p.rounds, &opts)
	}
	deliver := func(done int, ep *data.Episode) error {
		if opts.Context != nil {
			if err := opts.Context.Err(); err != nil {
				return fmt.Errorf("env: stopped after %d of %d episodes: %w", done-1, total, err)
			}
		}
		if err := emit(ep); err != nil {
			return err
		}
		if opts.Progress != nil {
			opts.Progress(done, total)
		}
		return nil
	}
	if p.workers == 1 || total <= 1 {
		for k := range total {
			ep, err := play(k)
			if err != nil {
				return err
			}
			if err := deliver(k+1, ep); err != nil {
				return err
			}
		}
		return nil
	}
	return runParallel(total, p.workers, play, deliver)
}

// Run is Play under its former name.
//
// Deprecated: use Play; Run will be removed.
func Run(e Env, pol metapolicy.Policy, opts RunOptions, emit func(*data.Episode) error) error {
	return Play(e, pol, opts, emit)
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

// runParallel plays episodes 0..total-1 on workers goroutines and delivers
// them in order. At most a window of episodes is in flight or waiting, so
// memory stays bounded.
func runParallel(total, workers int, play func(int) (*data.Episode, error),
	deliver func(int, *data.Episode) error) error {
	type result struct {
		k   int
		ep  *data.Episode
		err error
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
				ep, err := play(k)
				select {
				case results <- result{k, ep, err}:
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
				if r.err != nil {
					return r.err
				}
				if err := deliver(next+1, r.ep); err != nil {
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
	return fmt.Sprintf("%s/s%d/%s/%d", policy, seed, task, ep)
}

// playEpisode plays episode ep of task.
func playEpisode(e Env, pol metapolicy.Policy, task, ep, rounds int, opts *RunOptions) (*data.Episode, error) {
	rounds = RoundsOf(e, task, rounds)
	g, err := e.Start(task, episodeRNG(opts.Seed, task, ep, streamEnv))
	if err != nil {
		return nil, fmt.Errorf("env: %s: task %d: %w", e.Name(), task, err)
	}
	prng := episodeRNG(opts.Seed, task, ep, streamPolicy)
	id, question, gold := g.Task()
	n := g.Agents()
	where := func(round int) string {
		return fmt.Sprintf("env: %s: task %s: episode %d: round %d", e.Name(), id, ep, round)
	}
	if n < 2 {
		return nil, fmt.Errorf("%s: %d agents, want ≥ 2", where(0), n)
	}
	turns, err := g.Initial()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", where(0), err)
	}
	if len(turns) != n {
		return nil, fmt.Errorf("%s: %d turns, want %d", where(0), len(turns), n)
	}
	for i := range turns {
		turns[i].Action, turns[i].LogProb = nil, nil
	}
	out := &data.Episode{
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
	out.Rounds[0].Turns = turns
	states := make([]metapolicy.AgentState, n)
	actions := make([]metapolicy.Action, n)
	logps := make([]float64, n)
	history := make([][]string, 0, rounds)
	for t := 1; t <= rounds; t++ {
		prev := out.Rounds[t-1].Turns
		answers := make([]string, n)
		for i := range prev {
			states[i] = prev[i].State()
			answers[i] = prev[i].Answer
		}
		history = append(history, answers)
		for i := range n {
			obs := metapolicy.Observation{Self: i, Round: t, Rounds: rounds, Agents: states, History: history}
			var a metapolicy.Action
			var lp float64
			if opts.Greedy {
				a, lp, err = metapolicy.Greedy(pol, &obs)
			} else {
				a, lp, err = metapolicy.Sample(pol, &obs, prng)
			}
			if err != nil {
				return nil, fmt.Errorf("%s: agent %d: policy %s: %w", where(t), i, pol.Name(), err)
			}
			if !a.Valid() || math.IsNaN(lp) || lp > 1e-9 || math.IsInf(lp, 0) {
				return nil, fmt.Errorf("%s: agent %d: policy %s chose %v with log-probability %v",
					where(t), i, pol.Name(), a, lp)
			}
			actions[i], logps[i] = a, min(lp, 0)
		}
		cur := make([]data.Turn, n)
		for i := range n {
			seen := prev
			if selfRefines(pol) && actions[i] == metapolicy.Refine {
				seen = alone(prev, i)
			}
			turn, err := g.Step(t, i, actions[i], seen)
			if err != nil {
				return nil, fmt.Errorf("%s: agent %d: %s: %w", where(t), i, actions[i], err)
			}
			turn.Action, turn.LogProb = ptr(actions[i]), ptr(logps[i])
			cur[i] = turn
		}
		out.Rounds = append(out.Rounds, data.Round{Turns: cur})
	}
	return out, nil
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
