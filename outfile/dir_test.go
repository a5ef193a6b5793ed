//go:build unix

package outfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Issue 20 (staticcheck): the lock file's truncate and write errors were
// dropped by a shadowed err, so a lock whose holder line could not be
// written was taken without a word. A FIFO takes the flock but cannot be
// truncated.
func TestLockFileWriteErrorIsReported(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "run.lock")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := TryLockFile(fifo)
	if err == nil {
		l.Unlock()
		t.Fatal("TryLockFile on a file it cannot truncate: no error")
	}
	if !strings.Contains(err.Error(), fifo) {
		t.Errorf("error %q does not name the lock file", err)
	}
}

// Fresh refuses a directory with files, names them, and with overwrite
// removes only the writer's own.
func TestDirFresh(t *testing.T) {
	dir := t.TempDir()
	d, err := OpenDir(dir, "x.lock")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Unlock()
	own := func(n string) bool { return n == "results.json" }
	if err := d.Fresh(false, own); err != nil {
		t.Fatalf("empty but for the lock: %v", err)
	}
	os.WriteFile(filepath.Join(dir, "results.json"), []byte("old"), 0o644)
	os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o644)
	err = d.Fresh(false, own)
	if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "results.json") {
		t.Fatalf("non-empty: %v, want ErrNotEmpty naming results.json", err)
	}
	if err := d.Fresh(true, own); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "results.json")); !errors.Is(err, os.ErrNotExist) {
		t.Error("overwrite left the writer's own file")
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("overwrite removed a file the writer does not own: %v", err)
	}
}

// A second OpenDir is refused naming the holder; Abandon removes what the
// first created (files, lock file, directory), so the next start finds
// nothing; in a directory that existed with a lock file, both stay.
func TestDirAbandon(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "out")
	d, err := OpenDir(dir, "x.lock")
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenDir(dir, "x.lock")
	var held *HeldError
	if !errors.As(err, &held) || !strings.Contains(held.Holder, "pid ") {
		t.Fatalf("second OpenDir: %v, want a HeldError naming the holder", err)
	}
	os.WriteFile(filepath.Join(dir, "metrics.jsonl"), []byte("{}\n"), 0o644)
	if err := d.Abandon("metrics.jsonl"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the directory OpenDir made survived Abandon: %v", err)
	}

	os.Mkdir(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "x.lock"), nil, 0o644)
	d, err = OpenDir(dir, "x.lock")
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Abandon(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.lock")); err != nil {
		t.Errorf("a lock file OpenDir did not create was removed: %v", err)
	}
	// Released: the next writer takes it.
	d, err = OpenDir(dir, "x.lock")
	if err != nil {
		t.Fatal(err)
	}
	d.Unlock()
}

// A lock file unlinked between a taker's open and its flock (a racing
// Abandon) would give a lock that excludes no one: TryLockFile notices
// and takes the file now at the path, so a second taker is refused.
func TestLockFileUnlinkedWhileTaking(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	raced := false
	afterLockOpen = func(p string) {
		if !raced {
			raced = true
			os.Remove(p)
		}
	}
	defer func() { afterLockOpen = nil }()
	l, err := TryLockFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Unlock()
	if !raced {
		t.Fatal("the race was not staged")
	}
	if _, err := TryLockFile(path); !errors.Is(err, ErrLocked) {
		t.Fatalf("second taker after the race: %v, want ErrLocked", err)
	}
}
