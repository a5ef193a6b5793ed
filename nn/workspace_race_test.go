//go:build race

package nn

// raceEnabled: the race detector slows the kernels and allocates on its own.
const raceEnabled = true
