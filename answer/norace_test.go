//go:build !race

package answer

const raceEnabled = false
