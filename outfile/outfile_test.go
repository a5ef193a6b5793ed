//go:build unix

package outfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Create refuses every target that is not a regular file or missing, and
// leaves it as it was.
func TestRefusesWhatIsNotARegularFile(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real.txt")
	os.WriteFile(real, []byte("keep me"), 0o644)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	for target, what := range map[string]string{link: "symbolic link", fifo: "named pipe", sub: "directory"} {
		_, err := Create(target)
		if err == nil || !strings.Contains(err.Error(), what) || !strings.Contains(err.Error(), target) {
			t.Errorf("Create(%s): %v, want a refusal naming it a %s", target, err, what)
		}
		err = WriteFile(target, func(w io.Writer) error { _, err := io.WriteString(w, "x"); return err })
		if err == nil {
			t.Errorf("WriteFile(%s) succeeded", target)
		}
	}
	if err := Check(os.DevNull); err == nil || !strings.Contains(err.Error(), "character device") {
		t.Errorf("Check(%s): %v, want a refusal", os.DevNull, err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi, err)
	}
	if b, _ := os.ReadFile(real); string(b) != "keep me" {
		t.Errorf("the link's target now holds %q", b)
	}
	assertNoTemp(t, dir)
}

func TestCommitReplacesAndCloseAborts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.txt")
	os.WriteFile(path, []byte("old"), 0o600)

	// Close without Commit: the target is untouched, the temp is gone.
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "half-written")
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("after an abort the target holds %q, want old", b)
	}
	assertNoTemp(t, dir)

	// Commit: the target has the new bytes and mode 0644.
	if err := WriteFile(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("target holds %q, want new", b)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
	// A failing write leaves the old file.
	boom := errors.New("boom")
	if err := WriteFile(path, func(w io.Writer) error { io.WriteString(w, "par"); return boom }); !errors.Is(err, boom) {
		t.Fatalf("WriteFile: %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "new" {
		t.Fatalf("after a failed write the target holds %q", b)
	}
	assertNoTemp(t, dir)
}

// After an early Commit the writes go to the target; Truncate drops what
// came after the last Commit.
func TestEarlyCommitAndTruncate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	f, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	io.WriteString(f, "one\n")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "two\n")
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\n" {
		t.Fatalf("after two commits: %q", b)
	}
	io.WriteString(f, "thr")
	if err := f.Truncate(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(f, "three\n")
	f.Close()
	if b, _ := os.ReadFile(path); string(b) != "one\ntwo\nthree\n" {
		t.Fatalf("after truncate and close: %q", b)
	}
	assertNoTemp(t, dir)
}

func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.tmp-*"))
	if len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// A second TryLock fails naming the holder until the first is released;
// closing the descriptor (as the kernel does when a process dies, even by
// kill -9) releases it.
func TestLock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.jsonl")
	l, err := TryLock(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = TryLock(path) // another descriptor: flock excludes it as another process
	if !errors.Is(err, ErrLocked) || !strings.Contains(err.Error(), "pid ") || !strings.Contains(err.Error(), path) {
		t.Fatalf("second lock: %v, want ErrLocked naming the holder", err)
	}
	l.Unlock()
	l2, err := TryLock(path)
	if err != nil {
		t.Fatalf("after Unlock: %v", err)
	}
	l2.Unlock()
}
