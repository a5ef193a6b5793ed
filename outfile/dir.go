package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrNotEmpty is wrapped by Dir.Fresh's error for a directory that holds
// files: continue what is there, give another directory, or overwrite.
var ErrNotEmpty = errors.New("directory is not empty")

// Dir is an output directory that one process writes at a time (a training
// run's, a study's): an exclusive lock on a file in it (TryLockFile, so the
// refusal names the holder and a lock left by a killed process is taken
// over), the rule that a fresh start does not mix with what the directory
// holds (Fresh), and, when the work fails before it wrote anything worth
// keeping, the removal of what this process created there (Abandon), so
// that a retry is not refused.
type Dir struct {
	Path     string
	lockName string
	lock     *Lock
	madeDir  bool // the directory did not exist before OpenDir
	madeLock bool // nor did the lock file
}

// OpenDir creates dir when missing and takes the exclusive lock on its file
// lockName. When another process (or another OpenDir of this one) holds
// it, the error is a *HeldError (wrapping ErrLocked) naming the holder.
func OpenDir(dir, lockName string) (*Dir, error) {
	d := &Dir{Path: dir, lockName: lockName}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		d.madeDir = true
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("outfile: %w", err)
	}
	lockFile := filepath.Join(dir, lockName)
	if _, err := os.Lstat(lockFile); errors.Is(err, fs.ErrNotExist) {
		d.madeLock = true
	}
	l, err := TryLockFile(lockFile)
	if err != nil {
		if d.madeDir {
			os.Remove(dir) // only when still empty
		}
		return nil, err
	}
	d.lock = l
	return d, nil
}

// Fresh makes sure a fresh start does not mix with what the directory
// holds: one empty but for the lock file is used as is; one with files is
// refused with an error wrapping ErrNotEmpty that names the first few, or,
// with overwrite, cleared of the files own reports as the writer's (the
// others are never removed, and stay).
func (d *Dir) Fresh(overwrite bool, own func(name string) bool) error {
	entries, err := os.ReadDir(d.Path)
	if err != nil {
		return fmt.Errorf("outfile: %w", err)
	}
	var found []string
	for _, e := range entries {
		if e.Name() != d.lockName {
			found = append(found, e.Name())
		}
	}
	if len(found) == 0 {
		return nil
	}
	if !overwrite {
		more := ""
		if len(found) > 3 {
			more = fmt.Sprintf(" and %d more", len(found)-3)
			found = found[:3]
		}
		return fmt.Errorf("%s: %w (%s%s)", d.Path, ErrNotEmpty, strings.Join(found, ", "), more)
	}
	var errs []error
	for _, name := range found {
		if !own(name) {
			continue
		}
		if err := os.Remove(filepath.Join(d.Path, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("overwrite: %w", err)
	}
	return nil
}

// Abandon removes the named files (ones this process wrote in the
// directory since OpenDir: nothing in them is worth keeping), then the
// lock file if OpenDir created it and the directory if OpenDir created it
// and it is now empty, and releases the lock. The lock file is removed
// while still held: a process that opened it meanwhile finds, once it has
// the flock, that the path names another file or none, and starts again
// (TryLockFile). Errors are joined; a missing file is not one.
func (d *Dir) Abandon(names ...string) error {
	if d == nil || d.lock == nil {
		return nil
	}
	var errs []error
	for _, n := range names {
		if err := os.Remove(filepath.Join(d.Path, n)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if d.madeLock {
		if err := os.Remove(filepath.Join(d.Path, d.lockName)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	errs = append(errs, d.Unlock())
	if d.madeDir {
		os.Remove(d.Path) // fails, and leaves it, unless empty
	}
	return errors.Join(errs...)
}

// Unlock releases the lock and removes its file (Lock.Unlock). It is safe
// to call twice.
func (d *Dir) Unlock() error {
	if d == nil || d.lock == nil {
		return nil
	}
	err := d.lock.Unlock()
	d.lock = nil
	return err
}

// OpenOwnedDir is OpenDir for the directory of one owner at a time (a
// "run", a "study"): its errors start with the owner, and a held lock's
// wraps the owner's sentinel locked and names the holder.
func OpenOwnedDir(dir, lockName, owner string, locked error) (*Dir, error) {
	d, err := OpenDir(dir, lockName)
	var held *HeldError
	if errors.As(err, &held) {
		return nil, fmt.Errorf("%s: %s: %w by %s: one %s writes a directory at a time; wait for it", owner, dir, locked, held.Holder, owner)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", owner, err)
	}
	return d, nil
}
