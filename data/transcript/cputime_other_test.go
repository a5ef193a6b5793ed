//go:build !unix

package transcript

import "time"

// cpuTime is unknown here: the MB/cpu-s metric is left out.
func cpuTime() time.Duration { return 0 }
