//go:build goexperiment.simd && amd64

package nn

import (
	"simd/archsimd"
	"sync"
)

// The kernel sets this CPU can run, chosen once from its features: AVX-512
// first, then AVX2 with FMA, then the portable loops.

var kernelSets32 = sync.OnceValue(func() []*kernelSet[float32] {
	var ks []*kernelSet[float32]
	if archsimd.X86.AVX512() {
		ks = append(ks, &kernelSet[float32]{
			name: "avx512", lanes: 16,
			gemm: gemmF32x16, dot: dotF32x16, biasAct: biasActF32x16, actGrad: actGradF32x16, colSum: colSumF32x16, loss: lossF32x16, adam: adamF32x16,
		})
	}
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		ks = append(ks, &kernelSet[float32]{
			name: "avx2", lanes: 8,
			gemm: gemmF32x8, dot: dotF32x8, biasAct: biasActF32x8, actGrad: actGradF32x8, colSum: colSumF32x8, loss: lossF32x8, adam: adamF32x8,
		})
	}
	return append(ks, portableSet[float32]())
})

var kernelSets64 = sync.OnceValue(func() []*kernelSet[float64] {
	var ks []*kernelSet[float64]
	if archsimd.X86.AVX512() {
		ks = append(ks, &kernelSet[float64]{
			name: "avx512", lanes: 8,
			gemm: gemmF64x8, dot: dotF64x8, biasAct: biasActF64x8, actGrad: actGradF64x8, colSum: colSumF64x8, loss: lossRows[float64], adam: adamF64x8,
		})
	}
	if archsimd.X86.AVX2() && archsimd.X86.FMA() {
		ks = append(ks, &kernelSet[float64]{
			name: "avx2", lanes: 4,
			gemm: gemmF64x4, dot: dotF64x4, biasAct: biasActF64x4, actGrad: actGradF64x4, colSum: colSumF64x4, loss: lossRows[float64], adam: adamF64x4,
		})
	}
	return append(ks, portableSet[float64]())
})
