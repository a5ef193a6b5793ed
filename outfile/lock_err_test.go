package outfile

import (
	"os"
	"testing"
)

// A lock file that cannot be written is an error (issue 20: a shadowed err
// dropped the truncate and write errors, and the lock was taken with the
// holder's pid unrecorded). /dev/full fails every write.
func TestTryLockFileWriteError(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	l, err := TryLockFile("/dev/full")
	if err == nil {
		l.Unlock()
		t.Fatal("a lock file that cannot be written: no error")
	}
	t.Log(err)
}
