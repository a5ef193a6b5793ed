package run

// One process writes a directory at a time: LockDir takes an exclusive
// flock on run.lock (outfile.TryLockFile; no lock where flock does not
// exist) and writes the holder's pid and host into it, which the refusal
// of a second writer (ErrLocked) quotes. The kernel drops the flock when
// its process dies, so the file a killed run leaves is simply taken over.

import (
	"errors"

	"github.com/mpdf/mpdf/outfile"
)

// LockName is the file in a run directory that names the process writing
// it. Its flock, not its presence, is the lock: the kernel drops the flock
// when the holder dies, so a file left by a killed run is stale and taken
// over without a word.
const LockName = "run.lock"

// ErrLocked is wrapped by the error Train returns when another process
// writes the run directory.
var ErrLocked = errors.New("run directory in use")

// DirLock is a held run-directory lock.
type DirLock struct{ d *outfile.Dir }

// LockDir creates dir when missing and takes its exclusive lock, writing
// this process's pid and host into the lock file (outfile.OpenDir). It
// fails at once, with an error wrapping ErrLocked that names the holder,
// when another process (or another LockDir of this one) holds it. Train
// takes it for the whole run; tools that change a run directory take it too.
func LockDir(dir string) (*DirLock, error) {
	d, err := outfile.OpenOwnedDir(dir, LockName, "run", ErrLocked)
	if err != nil {
		return nil, err
	}
	return &DirLock{d: d}, nil
}

// Unlock releases the lock and removes the file: a finished run leaves
// none.
func (l *DirLock) Unlock() {
	if l == nil {
		return
	}
	l.d.Unlock()
}
