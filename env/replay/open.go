package replay

import (
	"errors"
	"fmt"
	"io"

	"github.com/mpdf/mpdf/data/transcript"
)

// ErrNoRounds is Open's error for transcripts that record no deliberation
// round after round 0: there is nothing to decide.
var ErrNoRounds = errors.New("the transcripts record no deliberation round after round 0")

// Open replays the transcripts a spec names: its globs expanded
// (transcript.Glob), read with its kind= and layout=, with its critic=
// and then opts applied. Each file's readability report goes to log
// (transcript.WriteReports) unless log is nil. Transcripts without a
// deliberation round are refused (ErrNoRounds).
func Open(sp Spec, log io.Writer, opts ...Option) (*Env, error) {
	paths, err := transcript.Glob(sp.Globs)
	if err != nil {
		return nil, globError{err}
	}
	e, reps, err := Load(paths, sp.Options, append(sp.EnvOptions(), opts...)...)
	if err != nil {
		return nil, err
	}
	if log != nil {
		if err := transcript.WriteReports(log, reps); err != nil {
			return nil, err
		}
	}
	if e.Rounds() < 1 {
		return nil, ErrNoRounds
	}
	return e, nil
}

// globError is Open's error for globs that name no file (transcript.Glob),
// told apart from a transcript that cannot be read.
type globError struct{ error }

func (e globError) Unwrap() error { return e.error }

// Grouper names each task's row in a per-group table: "none" (or "") puts
// every task in one (a nil function), "file" groups by transcript file,
// "model" by the model its name records (transcript.ModelOf).
func (e *Env) Grouper(by string) (func(task int) string, error) {
	switch by {
	case "", "none":
		return nil, nil
	case "file":
		return func(t int) string { return e.Question(t).File }, nil
	case "model":
		return func(t int) string { return transcript.ModelOf(e.Question(t).File) }, nil
	}
	return nil, fmt.Errorf("%q: want none, file or model", by)
}
