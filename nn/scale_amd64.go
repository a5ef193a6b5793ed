//go:build !noasm && gc

package nn

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// scale32 multiplies the first n elements of s by k with the vector kernel,
// a whole number of its blocks, and returns n.
func scale32(s []float32, k float32) int {
	n := len(s) &^ 31
	if n == 0 || !hasAVX2 {
		return 0
	}
	scaleAVX2(&s[0], n, k)
	return n
}
