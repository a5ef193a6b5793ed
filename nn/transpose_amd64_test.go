//go:build !noasm && gc

package nn

import (
	"math"
	"math/rand/v2"
	"testing"

	"golang.org/x/sys/cpu"
)

// transposeAVX512 writes what transposeTo writes, and nothing else: every
// element of dst, the ones between rows and after the last included, is
// compared bit for bit after both ran on the same NaN-filled buffer.
func TestTransposeAVX512MatchesTransposeTo(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(8, 8))
	nan := math.Float32frombits(0x7fc00bad)
	shapes := [][2]int{{1, 1}, {15, 1}, {16, 16}, {17, 3}, {26, 64}, {32, 64}, {64, 64}, {64, 3}, {3, 64}, {33, 47}}
	for range 200 {
		shapes = append(shapes, [2]int{1 + rng.IntN(70), 1 + rng.IntN(70)})
	}
	for _, sh := range shapes {
		rows, cols := sh[0], sh[1]
		lds, ldd := cols+rng.IntN(3)*rng.IntN(17), rows+rng.IntN(3)*rng.IntN(17)
		src := make([]float32, (rows-1)*lds+cols)
		for i := range src {
			src[i] = rng.Float32()*2 - 1
		}
		want := make([]float32, (cols-1)*ldd+rows+rng.IntN(20))
		for i := range want {
			want[i] = nan
		}
		got := append([]float32(nil), want...)
		transposeTo(want, ldd, src, lds, rows, cols)
		transpose512(got, ldd, src, lds, rows, cols)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%d×%d, lds %d, ldd %d: dst[%d] = %v, transposeTo %v", rows, cols, lds, ldd, i, got[i], want[i])
			}
		}
	}
}

func TestTransposeAVX512ChecksBounds(t *testing.T) {
	if !cpu.X86.HasAVX512F {
		t.Skip("no AVX-512")
	}
	defer func() {
		if recover() == nil {
			t.Error("a dst one element short did not panic")
		}
	}()
	src := make([]float32, 4*5)
	transpose512(make([]float32, 5*4-1), 4, src, 5, 4, 5)
}
