package view

import (
	"fmt"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
)

// PlayEvaluation plays every policy of ev as Play does (ev.Each, progress
// on one bar over all of them; nil: none), and returns the runs with the
// page's options for them: a title naming the environment, tasks,
// episodes, rounds and seed, and the confidence's source.
func PlayEvaluation(ev *replay.Evaluation, progress func(done, total int)) ([]Run, Options, error) {
	var runs []Run
	err := ev.Each(progress, func(p metapolicy.Policy, opts env.RunOptions) error {
		rs, err := Play(ev.Env, []metapolicy.Policy{p}, opts)
		runs = append(runs, rs...)
		return err
	})
	o := Options{
		Title:      fmt.Sprintf("%s: %d tasks × %d episodes, %d rounds, seed %d", replay.Title(ev.Env), len(ev.List), ev.Episodes, ev.Rounds, ev.Seed),
		Confidence: ev.ConfidenceSource(),
	}
	return runs, o, err
}
