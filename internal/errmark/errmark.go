// Package errmark marks an error with a sentinel that errors.Is finds,
// leaving its message as it is: a library says what is wrong in its own
// words, and its caller tells by the mark what the user can do about it
// (the command line, which flag). A Setting is the other such error: a
// value out of range named by its key, which the caller words as its own
// setting. A mark made by Of names such a setting too, for an error whose
// message is the library's own.
package errmark

import (
	"errors"
	"fmt"
	"strings"
)

// Mark returns err, which errors.Is also takes for mark.
func Mark(err, mark error) error {
	if k, ok := mark.(*keyed); ok {
		return keyedMark{marked{err, mark}, k.key}
	}
	return marked{err, mark}
}

type marked struct {
	error
	mark error
}

func (m marked) Is(target error) bool { return target == m.mark }
func (m marked) Unwrap() error        { return m.error }

// Of is a mark, like errors.New(msg), for errors about one setting, named
// by its key as the library's config names it ("held_out"): an error
// marked with it (Mark) says so to its caller (KeyOf), which words it as
// its own setting (the command line: --held-out: ...).
func Of(key, msg string) error { return &keyed{msg, key} }

type keyed struct{ msg, key string }

func (k *keyed) Error() string { return k.msg }

// keyedMark is an error marked by a mark of Of.
type keyedMark struct {
	marked
	key string
}

// KeyOf is the setting key of the outermost mark of Of on err, if any,
// or of a mark of Of returned (wrapped or not) as the error itself.
func KeyOf(err error) (key string, ok bool) {
	var k keyedMark
	if errors.As(err, &k) {
		return k.key, true
	}
	var bare *keyed
	if errors.As(err, &bare) {
		return bare.key, true
	}
	return "", false
}

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
