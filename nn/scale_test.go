package nn

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestScaleMatchesLoop holds Scale to the plain loop, bit for bit, for
// lengths around the vector kernel's blocks of 32, slices that do not start
// on a vector boundary, and NaN, ±Inf, subnormal and signed-zero elements.
func TestScaleMatchesLoop(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float64{math.NaN(), math.Inf(1), math.Inf(-1), 0, math.Copysign(0, -1), 1e-40, -3e-39, math.MaxFloat32}
	for _, n := range []int{0, 1, 7, 31, 32, 33, 63, 64, 65, 95, 96, 127, 128, 129, 6467} {
		for _, off := range []int{0, 1, 3} {
			for _, k := range []float64{0.37, 1 / (1.7 + 1e-6), -2, 1e-30} {
				src := make([]float64, n+off)
				for i := range src {
					src[i] = rng.NormFloat64() * 10
					if rng.IntN(8) == 0 {
						src[i] = special[rng.IntN(len(special))]
					}
				}
				got32, want32 := make([]float32, n+off), make([]float32, n+off)
				got64, want64 := make([]float64, n+off), make([]float64, n+off)
				for i, v := range src {
					got32[i], want32[i], got64[i], want64[i] = float32(v), float32(v), v, v
				}
				Scale(got32[off:], float32(k))
				Scale(got64[off:], k)
				for i := off; i < n+off; i++ {
					want32[i] *= float32(k)
					want64[i] *= k
				}
				for i := range src {
					if math.Float32bits(got32[i]) != math.Float32bits(want32[i]) {
						t.Fatalf("float32 n=%d off=%d k=%v: [%d] = %v, want %v", n, off, k, i, got32[i], want32[i])
					}
					if math.Float64bits(got64[i]) != math.Float64bits(want64[i]) {
						t.Fatalf("float64 n=%d off=%d k=%v: [%d] = %v, want %v", n, off, k, i, got64[i], want64[i])
					}
				}
			}
		}
	}
}
