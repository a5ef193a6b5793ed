// Package errmark marks an error with a sentinel that errors.Is finds,
// leaving its message as it is: a library says what is wrong in its own
// words, and its caller tells by the mark what the user can do about it
// (the command line, which flag).
package errmark

// Mark returns err, which errors.Is also takes for mark.
func Mark(err, mark error) error { return marked{err, mark} }

type marked struct {
	error
	mark error
}

func (m marked) Is(target error) bool { return target == m.mark }
func (m marked) Unwrap() error        { return m.error }
