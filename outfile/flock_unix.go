//go:build unix

package outfile

import (
	"errors"
	"os"
	"syscall"
)

// flock takes an exclusive flock(2) on f without waiting; ErrLocked means
// another open file description holds it.
func flock(f *os.File) error {
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		}
		return err
	}
}

// openNoFollow opens a lock file without following a symbolic link (the
// open fails with ELOOP) and without waiting on a FIFO or device.
const openNoFollow = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
