// Command _generate writes nn's amd64 assembly kernels, simd_gen_amd64.s, and their Go
// declarations, simd_gen_amd64.go, with avo (github.com/mmcloughlin/avo).
// It lives in a module of its own so that avo never becomes a dependency of
// nn's users. Run it through go generate in nn:
//
//	go generate ./nn
//
// Every kernel is written once, as a Go function emitting instructions, and
// instantiated for two instruction sets: AVX2 with FMA on 8-lane YMM
// registers and AVX-512 on 16-lane ZMM registers. The kernels where the
// width pays (the matrix products, tanh, and since session 7 tanh's
// gradient and the column sums, since session 8 the clip loss) come in
// both, and AVX-512 alone has the products with tanh's gradient in their
// epilogue (gemmTanhGrad) and the transposes of the weights' copy (a
// gather per column); the rest (bias and ReLU, Adam, the log-softmax) are
// AVX2 only and serve both sets: they are a small share of a step, and on
// an AVX-512 machine the same 8-lane code runs unchanged.
// Operands are float32; the float64 kernels are the portable Go ones.
//
// With -probe it writes internal/peak's FMA-throughput probes instead
// (go generate ./internal/peak).
//
// One file per kernel family: gemm.go (the matrix products), dot.go (the
// narrow products: four outputs, the float64 logits panels),
// activation.go (bias, tanh, ReLU and their gradients), colsum.go, adam.go,
// norm.go (finite check, sum of squares, scale), transpose.go, loss.go and
// lossgroup.go (the clip loss and log-softmax, on vecmath.go's exp and log),
// consts.go (the constant tables), probe.go. main stays in gen.go: avo
// writes the name of the file holding main into the generated files'
// header, which must not change.
package main

import (
	"flag"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/reg"
)

// isa is an instruction set the kernels are instantiated for.
type isa struct {
	Suf   string // function name suffix
	Lanes int    // float32 lanes of a vector
	Vec   func() VecVirtual
	// MaxRows is the most rows of C a gemm micro-kernel V vectors wide
	// keeps in registers: R·V accumulators, V vectors of B and one
	// broadcast within the 16 (AVX2) or 32 (AVX-512) vector registers.
	MaxRows [5]int
}

var (
	avx2   = isa{Suf: "AVX2", Lanes: 8, Vec: YMM, MaxRows: [5]int{0, 6, 5, 3, 2}}
	avx512 = isa{Suf: "AVX512", Lanes: 16, Vec: ZMM, MaxRows: [5]int{0, 6, 6, 6, 6}}
)

// size is the bytes of a float32.
const size = 4

// numActions is the policy's output width the loss kernels are unrolled
// for (nn.NumActions; this module cannot import nn): nn/simd_amd64.go,
// where the kernels are called, fails to build when nn.NumActions is not 3.
const numActions = 3

// probe selects the other output: the FMA-throughput probes of package
// internal/peak instead of nn's kernels (go generate ./internal/peak).
var probe = flag.Bool("probe", false, "emit internal/peak's FMA probes, not nn's kernels")

func main() {
	flag.Parse()
	ConstraintExpr("!noasm,gc")
	if *probe {
		for _, k := range []isa{avx2, avx512} {
			fmaProbe(k)
		}
		Generate()
		return
	}
	consts()
	for _, k := range []isa{avx2, avx512} {
		for v := 1; v <= 4; v++ {
			for r := 1; r <= k.MaxRows[v]; r++ {
				gemmKernel(k, r, v)
			}
		}
		if k.Lanes == 16 {
			for r := 1; r <= k.MaxRows[4]; r++ {
				gemmKernelEpi(k, r, 4, true)
			}
		}
		tanhRows(k)
		dot(k)
		for r := 1; r <= panelOuts; r++ {
			panelSums(k, r)
		}
	}
	biasRows()
	actGrad()
	colSum(avx2)
	adam()
	allFinite()
	scale()
	sumSquares()
	lossVec()
	logSoftmax3()
	actGradTanh512()
	colSum(avx512)
	transpose512()
	lossVec512()
	Generate()
}
