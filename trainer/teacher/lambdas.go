package teacher

import (
	"fmt"
	"io"

	"github.com/mpdf/mpdf/env"
)

// CeilingOptions say how SearchLambdas searches and reports.
type CeilingOptions struct {
	Config                        // Lambda is set per search
	Workers int                   // questions searched at once (0: GOMAXPROCS)
	Group   func(task int) string // a task's row; nil pools all
	// Progress, when not nil, gives each search's progress callback
	// (labelled by its λ) and what ends it.
	Progress func(label string) (update func(done, total int), finish func())
	// Log, when not nil, is told how many questions had no gold answer.
	Log io.Writer
}

// SearchLambdas summarises the hindsight optimum of every task of e under
// each token cost of lambdas (SearchTasks, then Summarize): the ceiling of
// any per-agent policy at that cost, one set of rows per cost.
func SearchLambdas(e env.Env, lambdas []float64, o CeilingOptions) ([]Summary, error) {
	tasks := make([]int, e.NumTasks())
	for i := range tasks {
		tasks[i] = i
	}
	var all []Summary
	for _, l := range lambdas {
		cfg := o.Config
		cfg.Lambda = l
		update, finish := func(int, int) {}, func() {}
		if o.Progress != nil {
			update, finish = o.Progress(fmt.Sprintf("λ=%g", l))
		}
		res, noGold, err := SearchTasks(e, tasks, cfg, o.Workers, update)
		finish()
		if err != nil {
			return nil, err
		}
		if noGold > 0 && o.Log != nil {
			fmt.Fprintf(o.Log, "%d questions without a gold answer skipped\n", noGold)
		}
		ss, err := Summarize(e, res, l, 0, o.Group)
		if err != nil {
			return nil, err
		}
		all = append(all, ss...)
	}
	return all, nil
}
