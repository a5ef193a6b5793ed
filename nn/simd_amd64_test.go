//go:build !noasm && gc

package nn

import (
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"
)

// The generated loss kernel reads lossCols by offset: 13 columns of tileRows
// float32, then the scratch vectors.
func TestLossColsLayout(t *testing.T) {
	var c lossCols
	if got, want := unsafe.Offsetof(c.tmp), uintptr(13*tileRows*4); got != want {
		t.Errorf("lossCols.tmp at offset %d, the assembly expects %d", got, want)
	}
	if got, want := unsafe.Offsetof(c.g0), uintptr(10*tileRows*4); got != want {
		t.Errorf("lossCols.g0 at offset %d, the assembly expects %d", got, want)
	}
}

// The session-7 speed-ups of the AVX-512 step change no bit: the 16-lane
// tanh gradient and column sums against the 8-lane kernels they replaced,
// and a square layer's weight gradient kept [out][pad in] (copied out by
// rows) against [in][pad out] (transposed out). Checkpoints of a run stay
// byte-identical only if these hold.
func TestAVX512StepSameBitsAsBefore(t *testing.T) {
	k := kernelSets32()[0]
	if k.name != "avx512" {
		t.Skipf("best float32 set is %s", k.name)
	}
	before := *k
	before.actGrad, before.colSum = actGradAVX2, colSumAVX2Go
	sizes := []int{32, 64, 64, NumActions}
	for _, n := range []int{100, 512, 4096} {
		rng := rand.New(rand.NewPCG(3, uint64(n)))
		m := randModel[float32](rng, sizes, Tanh)
		b := randBatch(rng, m, n)
		now, err := newWorkspace(sizes, Tanh, n, 0, k)
		if err != nil {
			t.Fatal(err)
		}
		old, err := newWorkspace(sizes, Tanh, n, 0, &before)
		if err != nil {
			t.Fatal(err)
		}
		if !now.s.vecIn[1] {
			t.Fatal("the 64×64 layer's weight gradient is not kept [out][pad in]")
		}
		old.s.vecIn[1] = false
		g1, g2 := make([]float32, len(m.Params)), make([]float32, len(m.Params))
		st1, st2 := now.LossAndGrad(g1, m, b, DefaultLoss()), old.LossAndGrad(g2, m, b, DefaultLoss())
		if st1 != st2 {
			t.Errorf("batch %d: statistics %+v, before %+v", n, st1, st2)
		}
		for i := range g1 {
			if math.Float32bits(g1[i]) != math.Float32bits(g2[i]) {
				t.Fatalf("batch %d: grad[%d] = %v, before %v", n, i, g1[i], g2[i])
			}
		}
		now.Close()
		old.Close()
	}
}
