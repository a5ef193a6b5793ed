//go:build !unix

package outfile

import "os"

// flock does not exclude where flock(2) is not available.
func flock(*os.File) error { return nil }
