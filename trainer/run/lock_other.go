//go:build !unix

package run

import "os"

// tryLock is a no-op where flock is unavailable: one writer per directory
// is then the user's to ensure.
func tryLock(*os.File) (bool, error) { return true, nil }
