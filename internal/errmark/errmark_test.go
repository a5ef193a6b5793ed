package errmark

import (
	"errors"
	"fmt"
	"io/fs"
	"testing"
)

func TestMark(t *testing.T) {
	mark := errors.New("mark")
	err := fmt.Errorf("outer: %w", Mark(fs.ErrNotExist, mark))
	if err.Error() != "outer: "+fs.ErrNotExist.Error() {
		t.Errorf("message %q: the mark changed it", err)
	}
	if !errors.Is(err, mark) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is misses the mark or the error: %v, %v", errors.Is(err, mark), errors.Is(err, fs.ErrNotExist))
	}
	if errors.Is(Mark(fs.ErrNotExist, nil), mark) {
		t.Error("another mark is found")
	}
}

// A Setting says its scope, key (words parted by spaces), value and want.
func TestSetting(t *testing.T) {
	err := fmt.Errorf("open: %w", Bad("env: run options", "max_tokens", -1, "want ≥ 0"))
	var s *Setting
	if !errors.As(err, &s) || s.Key != "max_tokens" || err.Error() != "open: env: run options: max tokens -1: want ≥ 0" {
		t.Errorf("%v (%+v)", err, s)
	}
}

// A mark of Of names its setting to KeyOf, the outermost one first; a
// plain mark names none.
func TestKeyOf(t *testing.T) {
	inner, outer := Of("split", "bad split"), Of("held_out", "bad share")
	err := fmt.Errorf("eval: %w", Mark(Mark(fs.ErrNotExist, inner), outer))
	if key, ok := KeyOf(err); !ok || key != "held_out" || !errors.Is(err, inner) || err.Error() != "eval: "+fs.ErrNotExist.Error() {
		t.Errorf("KeyOf %q %v, message %q", key, ok, err)
	}
	if key, ok := KeyOf(Mark(fs.ErrNotExist, errors.New("plain"))); ok {
		t.Errorf("a plain mark names %q", key)
	}
	if key, ok := KeyOf(fmt.Errorf("run: %w", inner)); !ok || key != "split" {
		t.Errorf("a mark of Of returned as the error: KeyOf %q %v, want split", key, ok)
	}
}
