package main

import (
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
)

// record plays e under opts with pol, writing every episode to w as it
// comes (total episodes on a progress bar named label) and tallying them.
// It returns how many episodes it wrote and their tally. w is closed either
// way; on error the caller decides whether to keep what was written.
func record(e env.Env, pol resolvedPolicy, opts env.RunOptions, w *data.Writer, label string, total int, quiet bool) (int64, env.Result, error) {
	bar := newBar(total, label, quiet)
	opts.Progress = barProgress(bar, 0)
	tally := env.Tally{Policy: pol.Name()}
	err := env.Run(e, pol, opts, func(ep *data.Episode) error {
		if err := w.WriteEpisode(ep); err != nil {
			return err
		}
		return tally.Add(ep)
	})
	_ = bar.Finish()
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	return w.Records(), tally.Result(), err
}
