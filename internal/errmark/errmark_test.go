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
