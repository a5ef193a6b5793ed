package open

import (
	"errors"

	"github.com/mpdf/mpdf/internal/errmark"
)

// The errors of opening an environment (Env, Replay), of choosing the
// tasks an evaluation plays (Tasks) and of a training split (Split), which
// a caller words in terms of its own settings (the command line's flags):
// errors.Is tells them. More tasks asked than the environment or side has
// is env.ErrTasks.
var (
	// ErrSplit: the side or the split itself is wrong.
	ErrSplit = errmark.Of("split", "bad split")
	// ErrEmptySide: the side played holds no task.
	ErrEmptySide = errors.New("empty side")
	// ErrHeldOut: the held-out share cannot split the tasks.
	ErrHeldOut = errmark.Of("held_out", "bad held-out share")
	// ErrSpec: the environment spec is not one that opens (Env, Eval):
	// not sim or a replay spec, or a replay spec whose globs match no
	// file of recorded rounds.
	ErrSpec = errmark.Of("env", "bad environment spec")
	// ErrConfig: a Config field contradicts the spec (a kind or a
	// critic the spec says otherwise, a critic on the simulator); the
	// message starts with the field's name.
	ErrConfig = errors.New("environment config contradicts the spec")
	// ErrNoPolicy: an evaluation given no policy and no baselines.
	ErrNoPolicy = errors.New("no policy to evaluate")
	// ErrNoRounds: the transcripts record no deliberation round after
	// round 0: there is nothing to decide.
	ErrNoRounds = errors.New("the transcripts record no deliberation round after round 0")
)
