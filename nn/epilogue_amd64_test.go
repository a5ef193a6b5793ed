//go:build !noasm && gc

package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func gemmAVX512() bool { return kernelSets32()[0].name == "avx512" }

// before is the AVX-512 set as it was before session 7's second pass:
// tanh's gradient a pass of its own after the ∂H products, and the output
// layer's bias added by biasAct after the dot kernel (which adds zeros).
func before() *kernelSet[float32] {
	k := *kernelSets32()[0]
	k.gemmTanhGrad = nil
	k.dot = func(c []float32, ldc int, h []float32, ldh int, w []float32, ldw int, rows, out, width int, bias []float32) {
		var zero [64]float32
		dot512(c, ldc, h, ldh, w, ldw, rows, out, width, zero[:len(bias)])
		biasAct512(c, ldc, bias, rows, ldc, Tanh, false)
	}
	return &k
}

// The second pass changes no bit: tanh's gradient in the products' epilogue and the output layer's bias in the dot kernel,
// against the set before it, on the clip, rank-matching and SFT losses and
// the forward pass, at batches that end in partial tiles and row blocks.
// Checkpoints of a run stay byte-identical only if this holds.
func TestAVX512StepSameBitsAsBeforePass2(t *testing.T) {
	if !gemmAVX512() {
		t.Skip("no AVX-512")
	}
	sizes := []int{32, 64, 64, NumActions}
	rank := LossConfig{Beta: 0.3, Entropy: 0.02, Kind: LossRankMatch}
	for _, n := range []int{1, 7, 100, 512, 4096} {
		rng := rand.New(rand.NewPCG(11, uint64(n)))
		m := randModel[float32](rng, sizes, Tanh)
		b := randBatch(rng, m, n)
		b.Group = make([]int32, n)
		for i := range b.Group {
			b.Group[i] = int32(i / 8)
		}
		now, err := newWorkspace(sizes, Tanh, n, 0, kernelSets32()[0])
		if err != nil {
			t.Fatal(err)
		}
		old, err := newWorkspace(sizes, Tanh, n, 0, before())
		if err != nil {
			t.Fatal(err)
		}
		same := func(what string, x, y []float32) {
			t.Helper()
			for i := range x {
				if math.Float32bits(x[i]) != math.Float32bits(y[i]) {
					t.Fatalf("batch %d, %s: [%d] = %v, before %v", n, what, i, x[i], y[i])
				}
			}
		}
		g1, g2 := make([]float32, len(m.Params)), make([]float32, len(m.Params))
		for _, cfg := range []LossConfig{DefaultLoss(), rank} {
			st1, st2 := now.LossAndGrad(g1, m, b, cfg), old.LossAndGrad(g2, m, b, cfg)
			if st1 != st2 {
				t.Errorf("batch %d, loss %q: statistics %+v, before %+v", n, cfg.Kind, st1, st2)
			}
			same("gradient, loss "+cfg.Kind, g1, g2)
		}
		l1, l2 := now.SFTLossAndGrad(g1, m, b.X, b.Actions), old.SFTLossAndGrad(g2, m, b.X, b.Actions)
		if l1 != l2 {
			t.Errorf("batch %d: SFT loss %v, before %v", n, l1, l2)
		}
		same("SFT gradient", g1, g2)
		z1, z2 := make([]float32, n*NumActions), make([]float32, n*NumActions)
		now.ForwardTo(z1, m, b.X)
		old.ForwardTo(z2, m, b.X)
		same("logits", z1, z2)
		now.Close()
		old.Close()
	}
}

// The fused kernels against the two calls they replace, bit for bit, on
// every row count and both remainders of the unrolled loop.
func TestGemmTanhGradSameBitsAsTwoCalls(t *testing.T) {
	if !gemmAVX512() {
		t.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for np := 1; np <= 13; np++ {
		for _, n := range []int{1, 3, 5, 64, 67} {
			nj, ldc, sp, ldb := 128, 144, n+2, 136
			a, b := make([]float32, np*sp), make([]float32, n*ldb)
			h := make([]float32, np*ldc)
			for i := range a {
				a[i] = float32(rng.NormFloat64())
			}
			for i := range b {
				b[i] = float32(rng.NormFloat64())
			}
			for i := range h {
				h[i] = float32(math.Tanh(rng.NormFloat64()))
			}
			c1, c2 := make([]float32, np*ldc), make([]float32, np*ldc)
			if !gemmTanhGradAVX512(c1, ldc, a, sp, 1, b, ldb, np, nj, n, h) {
				t.Fatalf("np=%d n=%d: shape not taken", np, n)
			}
			gemm512.gemm(c2, ldc, a, sp, 1, b, ldb, np, nj, n, false)
			for p := range np {
				actGradAVX512(c2[p*ldc:p*ldc+nj], h[p*ldc:p*ldc+nj], Tanh)
			}
			for i := range c1 {
				if math.Float32bits(c1[i]) != math.Float32bits(c2[i]) {
					t.Fatalf("np=%d n=%d: c[%d] = %v, two calls %v", np, n, i, c1[i], c2[i])
				}
			}
		}
	}
	if gemmTanhGradAVX512(make([]float32, 48), 48, make([]float32, 4), 4, 1, make([]float32, 4*48), 48, 1, 48, 4, make([]float32, 48)) {
		t.Error("a width of 48 (not whole 64-column panels) was taken")
	}
}

// BenchmarkKernelStepPass2 is KernelStep's 4096-row step with the AVX-512
// set before and after the second pass, in one binary, on one and two
// goroutines.
func BenchmarkKernelStepPass2(b *testing.B) {
	if !gemmAVX512() {
		b.Skip("no AVX-512")
	}
	const n = 4096
	for _, threads := range []int{1, 2} {
		for _, impl := range []struct {
			name string
			k    *kernelSet[float32]
		}{{"before", before()}, {"after", kernelSets32()[0]}} {
			b.Run(fmt.Sprintf("threads=%d/impl=%s", threads, impl.name), func(b *testing.B) {
				benchStep(b, impl.k, []int{32, 64, 64, NumActions}, n, threads)
			})
		}
	}
}

// BenchmarkGemmTanhGrad is one 64-row tile's ∂H = ∂Z·W of the 64×64 layer
// and tanh's gradient, operands in L1: two passes against one.
func BenchmarkGemmTanhGrad(b *testing.B) {
	if !gemmAVX512() {
		b.Skip("no AVX-512")
	}
	rng := rand.New(rand.NewPCG(1, 1))
	a, w, c, h := make([]float32, 64*64), make([]float32, 64*64), make([]float32, 64*64), make([]float32, 64*64)
	for i := range a {
		a[i], w[i], h[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64()), float32(math.Tanh(rng.NormFloat64()))
	}
	b.Run("impl=apart", func(b *testing.B) {
		for b.Loop() {
			gemm512.gemm(c, 64, a, 64, 1, w, 64, 64, 64, 64, false)
			actGradAVX512(c, h, Tanh)
		}
	})
	b.Run("impl=fused", func(b *testing.B) {
		for b.Loop() {
			gemmTanhGradAVX512(c, 64, a, 64, 1, w, 64, 64, 64, 64, h)
		}
	})
}
