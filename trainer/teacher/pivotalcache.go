package teacher

import (
	"reflect"
	"slices"
	"sync"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// pivotalKey names one task's pivotal labels: the task in its source Env
// (env.Source), the base protocol of PivotalOver ("" for PivotalLabels),
// the task's rounds (env.RoundsOf through the view that asks), λ and the
// feature layout. No seed: only the labels of
// an env.Unseeded Env are kept, which play the same under every seed and
// every View's numbering.
type pivotalKey struct {
	env      env.Env
	task     int
	over     string
	rounds   int
	lambda   float64
	features string
}

// pivotalRows are one task's labels: features, actions, decisions seen.
type pivotalRows struct {
	x       []float32
	actions []uint8
	seen    int
}

// labelled holds the pivotal labels of every task labelled in this
// process: a study trains each of its seeds' folds on four fifths of the
// same tasks, and replaying a task's plans ~20 times per decision was a
// quarter of its CPU. It is bounded by the tasks of the Envs labelled
// times the configurations asked (a few hundred bytes per task).
var labelled sync.Map // pivotalKey → pivotalRows

// pivotalCached is PivotalLabels (over nil) or PivotalOver over (named
// overName), task by task in the order of tasks, reusing a task's labels
// from an earlier call when its source Env is Unseeded and held by pointer.
// It returns what the uncached call returns, the first error included.
func pivotalCached(e env.Env, tasks []int, over metapolicy.Policy, overName string, rounds int, lambda float64, seed uint64, fz metapolicy.Featurizer) (x []float32, actions []uint8, seen int, err error) {
	for _, t := range tasks {
		src, st := env.Source(e, t)
		cacheable := env.IsUnseeded(e, t) && reflect.TypeOf(src).Kind() == reflect.Pointer
		k := pivotalKey{src, st, overName, env.RoundsOf(e, t, rounds), lambda, fz.Version}
		var r pivotalRows
		if v, ok := labelled.Load(k); cacheable && ok {
			r = v.(pivotalRows)
		} else {
			r.x, r.actions, r.seen, err = pivotalLabels(e, []int{t}, over, over != nil, rounds, lambda, seed, fz.Width, fz.Featurize)
			if err != nil {
				return nil, nil, 0, err
			}
			if cacheable {
				r.x, r.actions = slices.Clip(r.x), slices.Clip(r.actions)
				labelled.Store(k, r)
			}
		}
		x, actions, seen = append(x, r.x...), append(actions, r.actions...), seen+r.seen
	}
	return x, actions, seen, nil
}
