//go:build race

package llm

// raceEnabled is set when the race detector is on: tests that only read
// data on one goroutine then look at less of it.
const raceEnabled = true
