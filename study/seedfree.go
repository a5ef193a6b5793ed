package study

import (
	"sync"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// seedFree keeps the test-side tallies of fixed protocols on tasks whose
// episodes cannot depend on the seed: the task's Env draws nothing from
// its stream (env.Unseeded, a replay) and the protocol took every action
// of every episode with probability 1, so no draw chose anything. Each
// seed of a study plays the baselines on every task once more; on a
// replay those episodes are the same, and a third of all the episodes a
// transcript study played. A key is (baseline, task); a value is the
// task's row without seed and fold. Only one study's jobs share one
// (its Env, episodes and rounds).
type seedFree struct{ rows sync.Map }

type seedFreeKey struct{ base, task int }

// playBase appends the rows of baseline p (number b of the study's, named
// name) on cell j's test tasks to rows: those a seed-free earlier cell
// played from cache, the others by env.Play with opts (the cache is told
// of those that prove seed-free).
func (s *Study) playBase(e env.Env, cfg *Config, opts env.RunOptions, b int, p metapolicy.Policy, name string, j Cell, rows []ResultRow) ([]ResultRow, error) {
	var todo []int
	for _, t := range j.Test {
		if _, ok := s.free.rows.Load(seedFreeKey{b, t}); !ok {
			todo = append(todo, t)
		}
	}
	played := make([]ResultRow, len(todo))
	free := make([]bool, len(todo))
	for k := range free {
		free[k] = env.IsUnseeded(e, todo[k])
	}
	if len(todo) > 0 {
		opts.Tasks = todo
		k := 0
		err := env.Play(e, p, opts, func(ep *data.Episode) error {
			i := k / cfg.Episodes
			if k%cfg.Episodes == 0 {
				t := todo[i]
				played[i] = ResultRow{Seed: j.Seed, Fold: j.Fold, Task: ep.Task, Index: t, Model: s.Tasks[t].Model, File: s.Tasks[t].File, Policy: name}
			}
			k++
			tally(&played[i], ep)
			free[i] = free[i] && certain(ep)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	k := 0
	for _, t := range j.Test {
		if k < len(todo) && todo[k] == t {
			if free[k] {
				r := played[k]
				r.Seed, r.Fold = 0, 0
				s.free.rows.Store(seedFreeKey{b, t}, r)
			}
			rows = append(rows, played[k])
			k++
			continue
		}
		v, _ := s.free.rows.Load(seedFreeKey{b, t})
		r := v.(ResultRow)
		r.Seed, r.Fold = j.Seed, j.Fold
		rows = append(rows, r)
	}
	return rows, nil
}

// certain reports whether every action of ep was taken with probability
// 1 (log-probability exactly 0): then any draw of the policy's stream takes
// the same actions.
func certain(ep *data.Episode) bool {
	for _, rd := range ep.Rounds[1:] {
		for _, turn := range rd.Turns {
			if turn.LogProb == nil || *turn.LogProb != 0 {
				return false
			}
		}
	}
	return true
}
