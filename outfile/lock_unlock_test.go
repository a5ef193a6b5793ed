package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A lock that made its file removes it on Unlock (a clean run leaves no
// empty lock file); one that found the file there leaves it.
func TestUnlockRemovesTheFileItMade(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Unlock(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(LockPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the lock file it made is still there: %v", err)
	}
	if err := os.WriteFile(LockPath(path), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if l, err = TryLock(path); err != nil {
		t.Fatal(err)
	}
	l.Unlock()
	if _, err := os.Stat(LockPath(path)); err != nil {
		t.Errorf("a lock file it found was removed: %v", err)
	}
}
