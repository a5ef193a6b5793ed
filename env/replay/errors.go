package replay

import "errors"

// The errors of choosing the tasks an evaluation plays (Tasks) and of a
// training split (OpenSplit), which a caller words in terms of its own
// settings (the command line's flags): errors.Is tells them.
var (
	// ErrTasks: more tasks asked than the environment or side has.
	ErrTasks = errors.New("more tasks asked than there are")
	// ErrSplit: the side or the split itself is wrong.
	ErrSplit = errors.New("bad split")
	// ErrEmptySide: the side played holds no task.
	ErrEmptySide = errors.New("empty side")
	// ErrHeldOut: the held-out share cannot split the tasks.
	ErrHeldOut = errors.New("bad held-out share")
)
