//go:build !noasm && gc

package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/internal/peak"
)

// general is gemm512 without its unit-stride kernels: every call through
// the general micro-kernels, as before session 7's second pass.
func general() *gemmTable {
	t := *gemm512
	t.kK, t.kP = [5][7]microKernel{}, [5][7]microKernel{}
	return &t
}

// The unrolled unit-stride kernels (gemm<R>x4AVX512K and …P) give the
// general kernels' results bit for bit: every row count, n from 1 to 70
// (each remainder of the unrolled loop), both strides, with and without
// accumulation, on values spread over many binades so that a changed
// order of additions would show.
func TestGemmUnitSameBitsAsGeneral(t *testing.T) {
	if !gemmAVX512() {
		t.Skip("no AVX-512")
	}
	old := general()
	rng := rand.New(rand.NewPCG(7, 7))
	val := func() float32 { return float32(rng.NormFloat64() * math.Exp2(float64(rng.IntN(20)-10))) }
	for _, unitK := range []bool{true, false} {
		for np := 1; np <= 13; np++ {
			for _, n := range []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 31, 32, 33, 64, 70} {
				for _, acc := range []bool{false, true} {
					nj, ldb, ldc := 64, 80, 96
					sp, st, la := n+3, 1, np*(n+3)
					if !unitK {
						sp, st, la = 1, np+5, n*(np+5)
					}
					a, b := make([]float32, la), make([]float32, n*ldb)
					for i := range a {
						a[i] = val()
					}
					for i := range b {
						b[i] = val()
					}
					c1 := make([]float32, np*ldc)
					for i := range c1 {
						c1[i] = val()
					}
					c2 := append([]float32(nil), c1...)
					gemm512.gemm(c1, ldc, a, sp, st, b, ldb, np, nj, n, acc)
					old.gemm(c2, ldc, a, sp, st, b, ldb, np, nj, n, acc)
					for i := range c1 {
						if math.Float32bits(c1[i]) != math.Float32bits(c2[i]) {
							t.Fatalf("unitK=%v np=%d n=%d acc=%v: c[%d] = %v, general kernels %v", unitK, np, n, acc, i, c1[i], c2[i])
						}
					}
				}
			}
		}
	}
}

func gemmAVX512() bool { return kernelSets32()[0].name == "avx512" }

// BenchmarkGemmShapes runs the step's products on one 64-row tile, operands
// in L1, through the unit-stride kernels and the general ones side by side.
func BenchmarkGemmShapes(b *testing.B) {
	if !gemmAVX512() {
		b.Skip("no AVX-512")
	}
	shapes := []struct {
		name          string
		sp, st, np, n int
		acc           bool
	}{
		{"forward-k32", 32, 1, 64, 32, false},
		{"forward-k64", 64, 1, 64, 64, false},
		{"wgrad-rows64", 1, 64, 64, 64, true},
	}
	rng := rand.New(rand.NewPCG(1, 1))
	a, bm, c := make([]float32, 64*64), make([]float32, 64*64), make([]float32, 64*64)
	for i := range a {
		a[i], bm[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
	}
	for _, s := range shapes {
		for _, impl := range []struct {
			name string
			t    *gemmTable
		}{{"general", general()}, {"unit", gemm512}} {
			b.Run(fmt.Sprintf("shape=%s/impl=%s", s.name, impl.name), func(b *testing.B) {
				for b.Loop() {
					impl.t.gemm(c, 64, a, s.sp, s.st, bm, 64, s.np, 64, s.n, s.acc)
				}
				b.ReportMetric(float64(2*s.np*64*s.n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
			})
		}
	}
}

func BenchmarkGemmTanh(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	a, bm, c, bias := make([]float32, 64*64), make([]float32, 64*64), make([]float32, 64*64), make([]float32, 64)
	for i := range a {
		a[i], bm[i] = float32(rng.NormFloat64()*0.1), float32(rng.NormFloat64()*0.1)
	}
	h := append([]float32(nil), c...)
	b.Run("impl=apart", func(b *testing.B) {
		for b.Loop() {
			gemm512.gemm(c, 64, a, 64, 1, bm, 64, 64, 64, 64, false)
			biasAct512(c, 64, bias, 64, 64, Tanh, true)
		}
	})
	b.Run("impl=fused", func(b *testing.B) {
		for b.Loop() {
			gemmEpi512(&gemmTanh512, false, c, 64, a, 64, bm, 64, 64, 64, 64, bias)
		}
	})
	b.Run("impl=grad-apart", func(b *testing.B) {
		for b.Loop() {
			gemm512.gemm(c, 64, a, 64, 1, bm, 64, 64, 64, 64, false)
			actGradAVX512(c, h, Tanh)
		}
	})
	b.Run("impl=grad-fused", func(b *testing.B) {
		for b.Loop() {
			gemmEpi512(&gemmTanhGrad512, true, c, 64, a, 64, bm, 64, 64, 64, 64, h)
		}
	})
}

// before is the AVX-512 set as it was before session 7's second pass: the
// general micro-kernels only, tanh's gradient a pass of its own, and the
// output layer's bias added by biasAct after the dot kernel (which adds
// zeros).
func before() *kernelSet[float32] {
	k := *kernelSets32()[0]
	k.gemm, k.gemmTanhGrad = general().gemm, nil
	k.dot = func(c []float32, ldc int, h []float32, ldh int, w []float32, ldw int, rows, out, width int, bias []float32) {
		var zero [64]float32
		dot512(c, ldc, h, ldh, w, ldw, rows, out, width, zero[:len(bias)])
		biasAct512(c, ldc, bias, rows, ldc, Tanh, false)
	}
	return &k
}

// The second pass changes no bit: the unit-stride kernels, tanh's gradient
// in the products' epilogue and the output layer's bias in the dot kernel,
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
			if !gemmTanhGradAVX512(c1, ldc, a, sp, b, ldb, np, nj, n, h) {
				t.Fatalf("np=%d n=%d: shape not taken", np, n)
			}
			general().gemm(c2, ldc, a, sp, 1, b, ldb, np, nj, n, false)
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
	if gemmTanhGradAVX512(make([]float32, 48), 48, make([]float32, 4), 4, make([]float32, 4*48), 48, 1, 48, 4, make([]float32, 48)) {
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
	sizes := []int{32, 64, 64, NumActions}
	flops := 0
	for l := range len(sizes) - 1 {
		flops += 2 * sizes[l] * sizes[l+1] * 3
	}
	flops -= 2 * sizes[0] * sizes[1]
	const n = 4096
	for _, threads := range []int{1, 2} {
		for _, impl := range []struct {
			name string
			k    *kernelSet[float32]
		}{{"before", before()}, {"after", kernelSets32()[0]}} {
			b.Run(fmt.Sprintf("threads=%d/impl=%s", threads, impl.name), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				m := randModel[float32](rng, sizes, Tanh)
				batch := randBatch(rng, m, n)
				ws, err := newWorkspace(sizes, Tanh, n, threads, impl.k)
				if err != nil {
					b.Fatal(err)
				}
				defer ws.Close()
				grad := make([]float32, len(m.Params))
				opt := NewAdam[float32](DefaultAdam(), len(m.Params))
				for b.Loop() {
					ws.LossAndGrad(grad, m, batch, DefaultLoss())
					opt.UpdateFast(m.Params, grad, 1e-4)
				}
				sps := float64(n) * float64(b.N) / b.Elapsed().Seconds()
				b.ReportMetric(sps, "samples/s")
				peak.Report(b, "avx512", sps*float64(flops)/1e9)
			})
		}
	}
}
