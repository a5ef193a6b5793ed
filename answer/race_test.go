//go:build race

package answer

// raceEnabled: the race detector slows the old reader ~10x; tests that
// replay the whole shared corpus take a sample.
const raceEnabled = true
