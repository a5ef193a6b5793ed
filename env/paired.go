package env

import (
	"fmt"

	"github.com/mpdf/mpdf/stats"
)

// Paired is policy a − policy b on the same tasks and episode seeds:
// accuracy in points and tokens per episode, each with a percentile
// bootstrap that resamples whole tasks (2 000 draws, seed 1: the same
// results give the same bounds), and Tasks the tasks with a gold answer.
// It is what a run reports of its RL stage against the supervised policy
// alone (trainer/run's RLChange); Judge's differences are taken alike.
type Paired struct {
	Accuracy stats.Interval `json:"accuracy_points"`
	Tokens   stats.Interval `json:"tokens_per_task"`
	Tasks    int            `json:"tasks"`
}

// PairedDiff pairs a and b task by task (Result.ByTask). Both must have
// played the same tasks with as many episodes each; a task without a gold
// answer counts for tokens only.
func PairedDiff(a, b *Result) (Paired, error) {
	other := make(map[string]TaskOutcome, len(b.ByTask))
	for _, t := range b.ByTask {
		other[t.Task] = t
	}
	if len(a.ByTask) != len(b.ByTask) {
		return Paired{}, fmt.Errorf("env: paired: %s played %d tasks, %s %d: the results are not paired", a.Policy, len(a.ByTask), b.Policy, len(b.ByTask))
	}
	var xa, ya, xt, yt []float64
	var ca, ct []int
	n := 0
	for i, t := range a.ByTask {
		u, ok := other[t.Task]
		if !ok || t.Episodes == 0 || t.Episodes != u.Episodes || t.Scored != u.Scored {
			return Paired{}, fmt.Errorf("env: paired: task %s is not played alike by %s and %s: the results are not paired", t.Task, a.Policy, b.Policy)
		}
		// One observation per episode (the task's mean, repeated), clustered
		// by task: the estimate is the difference of the pooled values.
		for range t.Episodes {
			xt, yt, ct = append(xt, float64(t.Tokens)/float64(t.Episodes)), append(yt, float64(u.Tokens)/float64(u.Episodes)), append(ct, i)
		}
		for range t.Scored {
			xa = append(xa, 100*float64(t.Correct)/float64(t.Scored))
			ya = append(ya, 100*float64(u.Correct)/float64(u.Scored))
			ca = append(ca, i)
		}
		if t.Scored > 0 {
			n++
		}
	}
	if len(xa) == 0 {
		return Paired{}, fmt.Errorf("env: paired: no task with a gold answer: accuracy cannot be compared")
	}
	acc, err := pairedInterval.PairedDiff(xa, ya, ca)
	if err != nil {
		return Paired{}, err
	}
	tok, err := pairedInterval.PairedDiff(xt, yt, ct)
	return Paired{Accuracy: acc, Tokens: tok, Tasks: n}, err
}

// pairedInterval is PairedDiff's bootstrap.
var pairedInterval = stats.Bootstrap{Resamples: stats.DefaultResamples, Level: 0.95, Seed: 1}
