package view

import (
	"fmt"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/metapolicy"
)

// PlayEvaluation plays every policy of ev as Play does (ev.Each, progress
// on one bar over all of them; nil: none), and returns the runs with the
// page's options for them: a title naming the environment, tasks,
// episodes, rounds and seed, and the confidence's source.
func PlayEvaluation(ev *open.Evaluation, progress func(done, total int)) ([]Run, Options, error) {
	var runs []Run
	err := ev.Each(progress, func(p metapolicy.Policy, opts env.RunOptions) error {
		rs, err := Play(ev.Env, []metapolicy.Policy{p}, opts)
		runs = append(runs, rs...)
		return err
	})
	o := Options{
		Title:      fmt.Sprintf("%s: %d tasks × %d episodes, %d rounds, seed %d", open.Title(ev.Env), len(ev.List), ev.Episodes, ev.Rounds, ev.Seed),
		Confidence: ev.ConfidenceSource(),
	}
	if err != nil {
		return runs, o, err
	}
	o.Verdict, err = verdicts(ev, runs)
	return runs, o, err
}

// verdicts are the verdict lines (env.Judge, as mpdf eval judges) of each
// learned policy of ev that the runs can judge: how it played, and what to
// use.
func verdicts(ev *open.Evaluation, runs []Run) ([]string, error) {
	rs := make(env.Results, len(runs))
	for i, r := range runs {
		t := env.Tally{Policy: r.Policy}
		for _, ep := range r.Episodes {
			if err := t.Add(ep); err != nil {
				return nil, fmt.Errorf("view: %w", err)
			}
		}
		rs[i] = t.Result()
	}
	var lines []string
	o := ev.JudgeOptions()
	for _, name := range ev.Learned() {
		v, err := env.Judge(rs, name, o)
		if err != nil {
			continue // no baseline to judge it against, as eval leaves it out
		}
		lines = append(lines, fmt.Sprintf("%s, played %s — %s", name, o.Play, v.Line()))
	}
	return lines, nil
}
