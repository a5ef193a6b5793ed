package outfile

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ErrLocked is wrapped by Lock's error when another process holds the lock.
var ErrLocked = errors.New("locked by another process")

// Lock is an exclusive lock on an output that one process at a time may
// write (a collection resumed in two terminals would otherwise lose one's
// episodes). It is an flock(2) on a hidden file beside the target,
// .NAME.lock, which records the holder's pid and host for the message a
// second process gets. The kernel releases it when its process ends, even
// by kill -9, so a lock is never stale; the file a killed holder leaves
// holds no state and is taken over. Unlock removes the file when this
// lock created it: a clean run leaves none (one that was there before
// stays). Where flock is not available (Windows) Lock does not exclude.
type Lock struct {
	f    *os.File
	path string
	made bool // the file did not exist before the lock
}

// LockPath is the lock file of the target path.
func LockPath(path string) string {
	dir, base := filepath.Split(path)
	return filepath.Join(dir, "."+base+".lock")
}

// TryLock takes the lock of path without waiting. When another process
// holds it, the error wraps ErrLocked and names the holder.
func TryLock(path string) (*Lock, error) {
	l, err := TryLockFile(LockPath(path))
	var held *HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("outfile: %s is being written by %s (lock %s): %w", path, held.Holder, held.File, ErrLocked)
	}
	return l, err
}

// HeldError is TryLockFile's error when another process holds the lock.
type HeldError struct {
	File   string // the lock file
	Holder string // what the holder wrote in it: "pid N on HOST"
}

func (e *HeldError) Error() string {
	return fmt.Sprintf("outfile: %s held by %s", e.File, e.Holder)
}

// Unwrap makes errors.Is(err, ErrLocked) hold.
func (e *HeldError) Unwrap() error { return ErrLocked }

// TryLockFile takes an exclusive flock on the file lockFile (created when
// missing) without waiting, and writes this process's pid and host into it.
// When another process holds it, the error is a *HeldError naming the
// holder. TryLock and trainer/run's run-directory lock are built on it.
func TryLockFile(lockFile string) (*Lock, error) { return tryLockFile(lockFile, 3) }

func tryLockFile(lockFile string, retry int) (*Lock, error) {
	_, statErr := os.Lstat(lockFile)
	made := errors.Is(statErr, os.ErrNotExist)
	// A lock file planted as a symbolic link would have us truncate what
	// it points to, and a FIFO or device would block or act on the open:
	// the open follows no link and does not wait, and anything but a
	// regular file is refused untouched.
	f, err := os.OpenFile(lockFile, os.O_RDWR|os.O_CREATE|openNoFollow, 0o644)
	if err != nil {
		if fi, lerr := os.Lstat(lockFile); lerr == nil && !fi.Mode().IsRegular() {
			return nil, fmt.Errorf("outfile: lock %s is %s, not a regular file: refused (remove it)", lockFile, describe(fi.Mode()))
		}
		return nil, fmt.Errorf("outfile: lock: %w", err)
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("outfile: lock: %w", err)
		}
		return nil, fmt.Errorf("outfile: lock %s is %s, not a regular file: refused (remove it)", lockFile, describe(fi.Mode()))
	}
	if afterLockOpen != nil {
		afterLockOpen(lockFile)
	}
	if err := flock(f); err != nil {
		holder, _ := os.ReadFile(lockFile)
		f.Close()
		if errors.Is(err, ErrLocked) {
			who := strings.TrimSpace(string(holder))
			if who == "" {
				who = "another process"
			}
			return nil, &HeldError{File: lockFile, Holder: who}
		}
		return nil, fmt.Errorf("outfile: lock %s: %w", lockFile, err)
	}
	// The file may have been removed (Dir.Abandon) between our open and
	// our flock: a lock on an unlinked file excludes no one, so take the
	// one now at the path.
	if fi, serr := f.Stat(); serr == nil {
		if cur, err := os.Stat(lockFile); err != nil || !os.SameFile(fi, cur) {
			f.Close()
			if retry > 0 {
				return tryLockFile(lockFile, retry-1)
			}
			return nil, fmt.Errorf("outfile: lock %s: the file was replaced while taking the lock", lockFile)
		}
	}
	host, _ := os.Hostname()
	err = f.Truncate(0)
	if err == nil {
		_, err = fmt.Fprintf(f, "pid %d on %s\n", os.Getpid(), host)
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("outfile: lock %s: %w", lockFile, err)
	}
	return &Lock{f: f, path: lockFile, made: made}, nil
}

// afterLockOpen, set by a test, runs between the open and the flock of a
// lock file: where a racing Dir.Abandon may unlink it.
var afterLockOpen func(lockFile string)

// Unlock releases the lock and removes its file if it made it, still
// holding the flock:
// a process that opened the file before and takes its flock after finds
// it unlinked and takes the one at the path instead (tryLockFile). It is
// safe to call twice.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	l.f.Truncate(0) // the next holder finds no stale pid
	if fi, err := l.f.Stat(); err == nil && l.made {
		if cur, err := os.Stat(l.path); err == nil && os.SameFile(fi, cur) {
			os.Remove(l.path) // ours only: never another holder's
		}
	}
	err := l.f.Close() // closing the descriptor releases the flock
	l.f = nil
	return err
}
