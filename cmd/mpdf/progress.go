package main

import (
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
)

// newBar returns a progress bar on stderr for total units of work, with an
// ETA; quiet (or a non-terminal stderr in CI logs) gets a bar that prints
// nothing but the final state.
func newBar(total int, desc string, quiet bool) *progressbar.ProgressBar {
	var w io.Writer = os.Stderr
	if quiet {
		w = io.Discard
	}
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription(desc),
		progressbar.OptionShowCount(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionShowElapsedTimeOnFinish(),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(100_000_000), // at most 10 redraws a second
		progressbar.OptionOnCompletion(func() { io.WriteString(w, "\n") }),
	)
}
