// Package errmark marks an error with a sentinel that errors.Is finds,
// leaving its message as it is: a library says what is wrong in its own
// words, and its caller tells by the mark what the user can do about it
// (the command line, which flag). A Setting is the other such error: a
// value out of range named by its key, which the caller words as its own
// setting.
package errmark

import (
	"fmt"
	"strings"
)

// Mark returns err, which errors.Is also takes for mark.
func Mark(err, mark error) error { return marked{err, mark} }

type marked struct {
	error
	mark error
}

func (m marked) Is(target error) bool { return target == m.mark }
func (m marked) Unwrap() error        { return m.error }

// A Setting is a library's setting out of range, named by its key (as the
// library's config or JSON names it: "eval_tasks") so that its caller can
// word it as its own setting (the command line: --eval-tasks 3).
type Setting struct {
	Scope string // the library's prefix: "run", "env: run options"
	Key   string // "eval_tasks"
	Value string // as given
	Want  string // what it may be: "want ≥ 0 (0 skips it)"
}

func (e *Setting) Error() string {
	return e.Scope + ": " + strings.ReplaceAll(e.Key, "_", " ") + " " + e.Value + ": " + e.Want
}

// Bad is a *Setting: the value v of key, in scope, is not what want says.
func Bad(scope, key string, v any, want string) error {
	return &Setting{scope, key, fmt.Sprint(v), want}
}
