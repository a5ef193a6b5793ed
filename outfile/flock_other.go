//go:build !unix

package outfile

import "os"

// flock does not exclude where flock(2) is not available.
func flock(*os.File) error { return nil }

// openNoFollow is 0 where O_NOFOLLOW is not available: Lock does not
// exclude there either, and the opened file is still checked to be regular.
const openNoFollow = 0
