package open

import (
	"fmt"
	"io"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// Evaluate plays every policy of ev on its tasks (Each) and scores them
// (env.Evaluate), progress on one bar over all of them (nil: none).
func (ev *Evaluation) Evaluate(progress func(done, total int)) (env.Results, error) {
	var results env.Results
	err := ev.Each(progress, func(p metapolicy.Policy, opts env.RunOptions) error {
		rs, err := env.Evaluate(ev.Env, []metapolicy.Policy{p}, opts)
		results = append(results, rs...)
		return err
	})
	return results, err
}

// WriteText writes the evaluation's results as mpdf eval prints them: the
// heading (Heading), the table, and the verdicts on the learned policies.
func (ev *Evaluation) WriteText(w io.Writer, results env.Results) error {
	if _, err := fmt.Fprintln(w, ev.Heading()); err != nil {
		return err
	}
	if err := results.WriteTable(w); err != nil {
		return err
	}
	return env.WriteVerdicts(w, results, ev.Learned(), ev.JudgeOptions())
}

// JudgeOptions are the verdict's options of this evaluation: its price of
// tokens, whether the agents state a confidence, and how learned policies
// were played.
func (ev *Evaluation) JudgeOptions() env.JudgeOptions {
	play := env.PlaySampled
	if ev.Greedy {
		play = env.PlayGreedy
	}
	return env.JudgeOptions{Lambda: ev.Lambda, Confidence: ev.Confidence(), Play: play}
}
