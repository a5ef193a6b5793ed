package main

import (
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/progress"
)

// record plays e under opts with pol, writing every episode emit accepts
// (all when emit is nil) to w as it comes (total episodes on a progress
// bar named label) and tallying them. With commit, each episode is
// committed (data.Writer.Commit) before the next, so that a crash keeps
// every episode finished before it. It returns how many episodes it wrote
// and their tally, added to tally when it is not nil (a resumed run's
// earlier episodes); w is left open: the caller closes or aborts it.
func record(e env.Env, pol resolvedPolicy, opts env.RunOptions, w *data.Writer, label string, total int,
	quiet, commit bool, emit func(*data.Episode) bool, tally *env.Tally) (int64, env.Result, error) {
	bar := progress.New(total, label, quiet)
	opts.Progress = bar.Func(0)
	if tally == nil {
		tally = &env.Tally{Policy: pol.Name()}
	}
	var written int64
	err := env.Play(e, pol, opts, func(ep *data.Episode) error {
		if emit != nil && !emit(ep) {
			return nil
		}
		if err := w.WriteEpisode(ep); err != nil {
			return err
		}
		if commit {
			if err := w.Commit(); err != nil {
				return err
			}
		}
		written++
		return tally.Add(ep)
	})
	_ = bar.Finish()
	return written, tally.Result(), err
}
