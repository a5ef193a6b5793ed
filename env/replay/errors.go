package replay

import (
	"errors"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/errmark"
)

// The errors of opening an environment (OpenEnv), of choosing the tasks
// an evaluation plays (Tasks) and of a training split (OpenSplit), which a caller words in terms of its own
// settings (the command line's flags): errors.Is tells them.
var (
	// ErrTasks: more tasks asked than the environment or side has
	// (env.ErrTasks, the one mark of it).
	ErrTasks = env.ErrTasks
	// ErrSplit: the side or the split itself is wrong.
	ErrSplit = errmark.Of("split", "bad split")
	// ErrEmptySide: the side played holds no task.
	ErrEmptySide = errors.New("empty side")
	// ErrHeldOut: the held-out share cannot split the tasks.
	ErrHeldOut = errmark.Of("held_out", "bad held-out share")
	// ErrSpec: the environment spec is not one that opens (OpenEnv,
	// Evaluate): not sim or a replay spec, or a replay spec whose globs
	// match no file of recorded rounds.
	ErrSpec = errmark.Of("env", "bad environment spec")
	// ErrEnvConfig: an EnvConfig field contradicts the spec (a kind or a
	// critic the spec says otherwise, a critic on the simulator); the
	// message starts with the field's name.
	ErrEnvConfig = errors.New("environment config contradicts the spec")
	// ErrNoPolicy: an evaluation given no policy and no baselines.
	ErrNoPolicy = errors.New("no policy to evaluate")
)
