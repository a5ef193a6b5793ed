package main

import (
	"errors"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/data"
)

// A flagWord is a library error that a flag answers: the library says
// what is wrong in its own words, the command line adds what to give.
type flagWord struct {
	err  error  // the library's sentinel (errors.Is)
	hint string // appended to the message after "; "
}

// flagWords are the one place where library errors become flag words.
var flagWords = []flagWord{
	{data.ErrPackReward, "drop the reward flags"},
}

// inFlagWords adds to err the hint of the first flagWord it is.
func inFlagWords(err error) error {
	for _, w := range flagWords {
		if errors.Is(err, w.err) {
			return &hinted{err, w.hint}
		}
	}
	return err
}

// hinted is an error with a flag's hint after it; it is still the error
// it was (errors.Is, errors.As, an exitError's code).
type hinted struct {
	error
	hint string
}

func (h *hinted) Error() string { return h.error.Error() + "; " + h.hint }
func (h *hinted) Unwrap() error { return h.error }

// addFlagWords puts every command's errors in flag words.
func addFlagWords(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error { return inFlagWords(run(cmd, args)) }
	}
	for _, s := range c.Commands() {
		addFlagWords(s)
	}
}
