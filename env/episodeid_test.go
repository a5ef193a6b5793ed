package env

import (
	"fmt"
	"math"
	"testing"
)

// EpisodeID is "%s/s%d/%s/%d" of its arguments, written without fmt.
func TestEpisodeIDFormat(t *testing.T) {
	for _, c := range []struct {
		pol, task string
		seed      uint64
		ep        int
	}{
		{"mpdf λ=0", "gsm8k:4ec5e5a37705", 1, 0},
		{"", "", 0, 0},
		{"a/b", "t%d", math.MaxUint64, math.MaxInt},
		{"gate", "q", 0x6576616c00000001, -1},
	} {
		if got, want := EpisodeID(c.pol, c.seed, c.task, c.ep), fmt.Sprintf("%s/s%d/%s/%d", c.pol, c.seed, c.task, c.ep); got != want {
			t.Errorf("EpisodeID %q, want %q", got, want)
		}
	}
}
