//go:build !noasm && gc

package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// lossAVX512 against lossAVX2, bit for bit: the gradient's three columns,
// every statistic (the float64 sums compared exactly), on every row count
// of one and two chunks, at a row offset into the batch, with ties of the
// clipped term (zero advantages), ratios past the clip range and raw
// log-ratios past ±20. The padding columns lossAVX512 leaves alone keep
// what they held.
func TestLossAVX512SameBitsAsAVX2(t *testing.T) {
	if !gemmAVX512() {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(5, 12))
	sizes := []int{4, 8, NumActions}
	m := randModel[float32](rng, sizes, Tanh)
	const n = 300
	b := randBatch(rng, m, n)
	for i := range b.Adv {
		switch rng.IntN(8) {
		case 0:
			b.Adv[i] = 0
		case 1:
			b.Adv[i] *= 40
		}
	}
	sentinel := math.Float32frombits(0x7fc0beef)
	cfgs := []LossConfig{DefaultLoss(), {EpsLow: 0.1, EpsHigh: 0.5, Beta: 0.3, Entropy: 0.05}}
	for _, ld := range []int{16, 4, 19} {
		for rows := 1; rows <= 2*tileRows+3; rows++ {
			r0 := rng.IntN(n - rows + 1)
			z := make([]float32, rows*ld)
			for i := range z {
				z[i] = float32(rng.NormFloat64() * 4)
				if rng.IntN(50) == 0 {
					z[i] *= 20
				}
			}
			cfg := cfgs[rows%2]
			invB := 1 / float64(n)
			want, got := make([]float32, rows*ld), make([]float32, rows*ld)
			for i := range got {
				got[i] = sentinel
			}
			var sw, sg lossSums
			lossAVX2(want, z, ld, b, r0, rows, cfg, invB, &sw)
			lossAVX512(got, z, ld, b, r0, rows, cfg, invB, &sg)
			name := fmt.Sprintf("ld %d, %d rows from %d", ld, rows, r0)
			if sw != sg {
				t.Fatalf("%s: sums %+v, AVX2 %+v", name, sg, sw)
			}
			for i := range got {
				w := want[i]
				if i%ld >= NumActions {
					w = sentinel
				}
				if math.Float32bits(got[i]) != math.Float32bits(w) {
					t.Fatalf("%s: dz[%d] (row %d, column %d) = %v, want %v", name, i, i/ld, i%ld, got[i], w)
				}
			}
		}
	}
}

// The session-8 set against the one before it (the gather transposes and
// the loss on 16 lanes off) on whole steps: the clip loss's gradient and
// statistics bit for bit, on the target net and on the training's
// 26-feature input (whose flat gradient rows are not whole vectors), at
// batches that end in partial tiles, one and two goroutines.
func TestAVX512StepSameBitsAsBeforeSession8(t *testing.T) {
	if !gemmAVX512() {
		t.Skip("no AVX-512")
	}
	old := *kernelSets32()[0]
	old.loss, old.transpose = lossAVX2, nil
	for _, sizes := range [][]int{{32, 64, 64, NumActions}, {26, 64, 64, NumActions}} {
		for _, n := range []int{1, 7, 100, 512, 777, 4096} {
			rng := rand.New(rand.NewPCG(17, uint64(n)))
			m := randModel[float32](rng, sizes, Tanh)
			b := randBatch(rng, m, n)
			for _, threads := range []int{1, 2} {
				now, err := newWorkspace(sizes, Tanh, n, threads, kernelSets32()[0])
				if err != nil {
					t.Fatal(err)
				}
				was, err := newWorkspace(sizes, Tanh, n, threads, &old)
				if err != nil {
					t.Fatal(err)
				}
				g1, g2 := make([]float32, len(m.Params)), make([]float32, len(m.Params))
				for range 2 { // the second step over the first's buffers
					st1, st2 := now.LossAndGrad(g1, m, b, DefaultLoss()), was.LossAndGrad(g2, m, b, DefaultLoss())
					if st1 != st2 {
						t.Fatalf("%v, batch %d, %d threads: statistics %+v, before %+v", sizes, n, threads, st1, st2)
					}
					for i := range g1 {
						if math.Float32bits(g1[i]) != math.Float32bits(g2[i]) {
							t.Fatalf("%v, batch %d, %d threads: grad[%d] = %v, before %v", sizes, n, threads, i, g1[i], g2[i])
						}
					}
				}
				now.Close()
				was.Close()
			}
		}
	}
}

// BenchmarkKernelStepSession8 is KernelStep's step with the AVX-512 set as
// it was before session 8 (impl=before: the scalar transposes, the 8-lane
// loss on gathered columns), with the gather transposes alone
// (impl=transpose) and as it is now (impl=now), in one binary, so that
// each run's figures meet the same load.
func BenchmarkKernelStepSession8(b *testing.B) {
	if !gemmAVX512() {
		b.Skip("no AVX-512")
	}
	sizes := []int{32, 64, 64, NumActions}
	before, transpose := *kernelSets32()[0], *kernelSets32()[0]
	before.loss, before.transpose = lossAVX2, nil
	transpose.loss = lossAVX2
	for _, n := range []int{512, 4096} {
		for _, threads := range []int{1, 2} {
			for _, impl := range []struct {
				name string
				k    *kernelSet[float32]
			}{{"before", &before}, {"transpose", &transpose}, {"now", kernelSets32()[0]}} {
				b.Run(fmt.Sprintf("batch=%d/threads=%d/impl=%s", n, threads, impl.name), func(b *testing.B) {
					benchStep(b, impl.k, sizes, n, threads)
				})
			}
		}
	}
}
