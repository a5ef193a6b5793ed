package run

import (
	"fmt"

	"github.com/mpdf/mpdf/internal/errmark"
)

// ErrContinue: a resumed run cannot go on in the setting given.
var ErrContinue = errmark.Of("resume", "the run cannot go on so")

// Setting is what starts a run besides its training config: the online
// environment (its spec and replay split) or the offline data, and the
// options a resume keeps.
type Setting struct {
	Env       string
	HeldOut   float64
	SplitSeed uint64
	// Data are the offline rollout paths; none for an online run.
	Data []string
	Options
}

// Continue is the setting a resume of rs goes on with: the run's own
// environment, split, data and options, except those given says were set
// anew, by their keys in the run's position (env, held_out, split_seed;
// Options' eval_tasks, keep, best_metric, skip_invalid, feature_width,
// metrics_every; data given in s.Data). An online run cannot go on
// offline, and an offline run of an older build that did not record its
// data needs it given again: both are ErrContinue.
func (rs *Resumable) Continue(s Setting, given func(name string) bool) (Setting, error) {
	pos := rs.Position
	keep := func(name string) bool { return !given(name) }
	if pos.Mode == "online" {
		if len(s.Data) > 0 {
			return s, errmark.Mark(fmt.Errorf("%s is an online run (%s); it cannot go on offline on %v", rs.Path, pos.Env, s.Data), ErrContinue)
		}
		if pos.Env != "" && keep("env") {
			s.Env = pos.Env
		}
		if pos.Env != "" && keep("held_out") {
			s.HeldOut = pos.HeldOut
		}
		if pos.Env != "" && keep("split_seed") {
			s.SplitSeed = pos.SplitSeed
		}
	}
	if pos.Mode == "offline" && len(s.Data) == 0 {
		if pos.Data == nil {
			return s, errmark.Mark(fmt.Errorf("%s is an offline run of an older build that did not record its data: give the rollouts again", rs.Path), ErrContinue)
		}
		s.Data = pos.Data.Paths
	}
	if p := pos.Options; p != nil {
		if keep("eval_tasks") {
			s.EvalTasks = p.EvalTasks
		}
		if keep("keep") {
			s.Keep = p.Keep
		}
		if keep("best_metric") {
			s.BestMetric = p.BestMetric
		}
		if keep("skip_invalid") {
			s.SkipInvalid = p.SkipInvalid
		}
		if keep("feature_width") && pos.Mode == "offline" {
			s.FeatureWidth = p.FeatureWidth
		}
		if keep("metrics_every") {
			s.MetricsEvery = p.MetricsEvery
		}
	}
	return s, nil
}
