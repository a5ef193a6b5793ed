//go:build race

package serve

// raceEnabled is set when the race detector is on: sync.Pool then drops a
// share of what is put back, so allocation counts do not hold.
const raceEnabled = true
