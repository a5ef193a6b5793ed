//go:build race

package transcript

// raceEnabled: the race detector multiplies memory (shadow memory) and
// time; tests that measure peak RSS cannot hold their bound under it.
const raceEnabled = true
