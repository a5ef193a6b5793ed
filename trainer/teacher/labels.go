package teacher

// Labels plays each task's best plan once more and records, for every
// agent and round, the observation the agent saw and the action the plan
// gave it: the decisions a supervised stage clones (trainer.SFT). Only
// training tasks may be given: the plans are chosen knowing the gold answer.

import (
	"errors"
	"fmt"
	"reflect"
	"runtime"
	"sync"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// SearchTasks runs Search on every task of tasks with workers goroutines
// (0: GOMAXPROCS) and returns the results in the order of tasks, the same
// for any number of workers. Tasks without a gold answer are skipped and
// counted in noGold. progress, when set, is called after each task from
// the calling goroutine.
func SearchTasks(e env.Env, tasks []int, cfg Config, workers int, progress func(done, total int)) (res []Result, noGold int, err error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]Result, len(tasks))
	errs := make([]error, len(tasks))
	next := make(chan int)
	doneCh := make(chan int)
	var wg sync.WaitGroup
	for range min(workers, max(1, len(tasks))) {
		wg.Go(func() {
			for k := range next {
				out[k], errs[k] = Search(e, tasks[k], cfg)
				doneCh <- k
			}
		})
	}
	go func() {
		for k := range tasks {
			next <- k
		}
		close(next)
	}()
	for d := range tasks {
		<-doneCh
		if progress != nil {
			progress(d+1, len(tasks))
		}
	}
	wg.Wait()
	for k := range tasks {
		switch {
		case errors.Is(errs[k], ErrNoGold):
			noGold++
		case errs[k] != nil:
			return nil, 0, errs[k]
		default:
			res = append(res, out[k])
		}
	}
	return res, noGold, nil
}

// Featurizer writes the feature vector of an observation into dst
// (metapolicy.Featurize, or another version's).
type Featurizer func(dst []float64, obs *metapolicy.Observation) error

// Labels plays every result's plan again (seed as in Search) and returns
// one labelled row per agent per round: the features of what the agent saw
// (width values each) and the action the plan gave it.
func Labels(e env.Env, results []Result, seed uint64, width int, featurize Featurizer) (x []float32, actions []uint8, err error) {
	f := make([]float64, width)
	for _, r := range results {
		ep, err := Play(e, r.Task, seed, r.Plan)
		if err != nil {
			return nil, nil, err
		}
		for t := 1; t < len(ep.Rounds); t++ {
			for i, turn := range ep.Rounds[t].Turns {
				obs := ep.Observation(t, i)
				if err := featurize(f, &obs); err != nil {
					return nil, nil, fmt.Errorf("teacher: task %s: round %d: agent %d: %w", ep.Task, t, i, err)
				}
				for _, v := range f {
					x = append(x, float32(v))
				}
				actions = append(actions, uint8(*turn.Action))
			}
		}
	}
	return x, actions, nil
}

// cacheKey names one Search: the task in its source Env (env.Source), and
// the configuration; and, unless the source is env.Unseeded, the task's
// number in the view searched, which seeds its game (GameRNG): another
// fold numbers the task otherwise and plays another game, so a plan kept
// from it would make the labels depend on which fold searched first.
type cacheKey struct {
	env  env.Env
	task int
	cfg  Config
	seat int // the view's task number; -1 on an Unseeded source
}

// searched holds every Search of searchCached in this process: a plan
// depends only on the task and the configuration, and a study asks for
// the same task's plan once per fold that trains on it. It is bounded by
// the tasks of the Envs searched (a few kilobytes per task).
var searched sync.Map // cacheKey → Result

// searchCached is SearchTasks on one worker, reusing the plan of a task
// already searched with the same configuration, through any view of its
// Env. Only Envs held by pointer are cached (their identity is the key).
func searchCached(e env.Env, tasks []int, cfg Config) ([]Result, error) {
	cfg, err := cfg.validate()
	if err != nil {
		return nil, err
	}
	var res []Result
	for _, t := range tasks {
		src, st := env.Source(e, t)
		cacheable := reflect.TypeOf(src).Kind() == reflect.Pointer
		k := cacheKey{src, st, cfg, t}
		if env.IsUnseeded(e, t) {
			k.seat = -1
		}
		if cacheable {
			if r, ok := searched.Load(k); ok {
				r := r.(Result)
				if r.Plan == nil { // no gold answer
					continue
				}
				r.Task = t
				res = append(res, r)
				continue
			}
		}
		r, err := Search(e, t, cfg)
		switch {
		case errors.Is(err, ErrNoGold):
			r = Result{}
		case err != nil:
			return nil, err
		}
		if cacheable {
			searched.Store(k, r)
		}
		if r.Plan != nil {
			res = append(res, r)
		}
	}
	return res, nil
}
