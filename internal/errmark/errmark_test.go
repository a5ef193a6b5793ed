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
