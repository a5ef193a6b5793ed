//go:build !noasm && gc

package nn

import (
	"fmt"
	"sync"

	"golang.org/x/sys/cpu"
)

// The assembly kernels of simd_gen_amd64.s (generated: go generate ./nn) are
// wired here into kernel sets, chosen once from the CPU's features:
// AVX-512 first, then AVX2 with FMA, then the portable loops. float64 runs
// the portable loops.

// The assembly (nn/_generate's numActions: logSoftmax3AVX2, lossVecAVX2's
// columns, lossRowsAVX512's gathers) and lossAVX2's columns z0…z2, g0…g2
// are written for three actions: this fails to build when NumActions
// changes. The generator is its own module and cannot see NumActions.
var _ = [1]struct{}{}[NumActions-3]

var kernelSets32 = sync.OnceValue(func() []*kernelSet[float32] {
	var ks []*kernelSet[float32]
	avx2 := cpu.X86.HasAVX2 && cpu.X86.HasFMA
	if avx2 && cpu.X86.HasAVX512F {
		ks = append(ks, &kernelSet[float32]{
			name: "avx512", lanes: 16,
			gemm: gemm512.gemm, gemmTanhGrad: gemmTanhGradAVX512, dot: dot512, biasAct: biasAct512, actGrad: actGradAVX512, colSum: colSumAVX512Go, transpose: transpose512, loss: lossAVX512, adam: adamAVX2Go, logSoftmax: logSoftmaxAVX2,
		})
	}
	if avx2 {
		ks = append(ks, &kernelSet[float32]{
			name: "avx2", lanes: 8,
			gemm: gemm256.gemm, dot: dot256, biasAct: biasAct256, actGrad: actGradAVX2, colSum: colSumAVX2Go, loss: lossAVX2, adam: adamAVX2Go, logSoftmax: logSoftmaxAVX2,
		})
	}
	return append(ks, portableSet[float32]())
})

var kernelSets64 = sync.OnceValue(func() []*kernelSet[float64] {
	return []*kernelSet[float64]{portableSet[float64]()}
})

// microKernel is the signature of the generated gemm<R>x<V> kernels: rows
// 0..R−1 of C, V vectors of columns; strides in bytes, n ≥ 1.
type microKernel func(c *float32, ldc int, a *float32, sp, st int, b *float32, ldb int, n int, acc bool)

// gemmTable is one instruction set's micro-kernels, k[V][R], and the most
// rows a kernel V vectors wide takes.
type gemmTable struct {
	lanes   int
	maxRows [5]int
	k       [5][7]microKernel
}

var gemm256 = &gemmTable{
	lanes:   8,
	maxRows: [5]int{0, 6, 5, 3, 2},
	k: [5][7]microKernel{
		1: {nil, gemm1x1AVX2, gemm2x1AVX2, gemm3x1AVX2, gemm4x1AVX2, gemm5x1AVX2, gemm6x1AVX2},
		2: {nil, gemm1x2AVX2, gemm2x2AVX2, gemm3x2AVX2, gemm4x2AVX2, gemm5x2AVX2},
		3: {nil, gemm1x3AVX2, gemm2x3AVX2, gemm3x3AVX2},
		4: {nil, gemm1x4AVX2, gemm2x4AVX2},
	},
}

var gemm512 = &gemmTable{
	lanes:   16,
	maxRows: [5]int{0, 6, 6, 6, 6},
	k: [5][7]microKernel{
		1: {nil, gemm1x1AVX512, gemm2x1AVX512, gemm3x1AVX512, gemm4x1AVX512, gemm5x1AVX512, gemm6x1AVX512},
		2: {nil, gemm1x2AVX512, gemm2x2AVX512, gemm3x2AVX512, gemm4x2AVX512, gemm5x2AVX512, gemm6x2AVX512},
		3: {nil, gemm1x3AVX512, gemm2x3AVX512, gemm3x3AVX512, gemm4x3AVX512, gemm5x3AVX512, gemm6x3AVX512},
		4: {nil, gemm1x4AVX512, gemm2x4AVX512, gemm3x4AVX512, gemm4x4AVX512, gemm5x4AVX512, gemm6x4AVX512},
	},
}

// gemm is kernelSet.gemm: C is covered by blocks of up to four vectors of
// columns and as many rows as a micro-kernel that wide keeps in registers.
// checkGemm has bounded every element the kernels address.
func (t *gemmTable) gemm(c []float32, ldc int, a []float32, sp, st int, b []float32, ldb int, np, nj, n int, acc bool) {
	if !checkGemm(len(c), ldc, len(a), sp, st, len(b), ldb, np, nj, n, t.lanes) {
		return
	}
	const z = 4
	for j := 0; j < nj; {
		v := min(4, (nj-j)/t.lanes)
		R := t.maxRows[v]
		ks := &t.k[v]
		for p := 0; p < np; p += R {
			r := min(R, np-p)
			ks[r](&c[p*ldc+j], z*ldc, &a[p*sp], z*sp, z*st, &b[j], z*ldb, n, acc)
		}
		j += v * t.lanes
	}
}

type dotKernel func(c *float32, ldc int, h *float32, ldh int, w *float32, ldw int, rows, width int, bias *float32)

func dot256(c []float32, ldc int, h []float32, ldh int, w []float32, ldw int, rows, out, width int, bias []float32) {
	dotAsm(dotAVX2, 8, c, ldc, h, ldh, w, ldw, rows, out, width, bias)
}

func dot512(c []float32, ldc int, h []float32, ldh int, w []float32, ldw int, rows, out, width int, bias []float32) {
	dotAsm(dotAVX512, 16, c, ldc, h, ldh, w, ldw, rows, out, width, bias)
}

// dotAsm is kernelSet.dot: four outputs at a time, the rows of w past out
// zero. It checks the operands' extent once for the kernel.
func dotAsm(k dotKernel, lanes int, c []float32, ldc int, h []float32, ldh int, w []float32, ldw int, rows, out, width int, bias []float32) {
	out4 := (out + 3) &^ 3
	if rows <= 0 || out <= 0 {
		return
	}
	if width <= 0 || width%lanes != 0 || ldc < out4 || ldw < width || (rows > 1 && ldh < width) ||
		(rows-1)*ldc+out4 > len(c) || (rows-1)*ldh+width > len(h) || (out4-1)*ldw+width > len(w) || len(bias) < out4 {
		panic(fmt.Sprintf("nn: dot: %d rows of %d outputs, width %d: operands out of bounds", rows, out, width))
	}
	for o := 0; o < out4; o += 4 {
		k(&c[o], 4*ldc, &h[0], 4*ldh, &w[o*ldw], 4*ldw, rows, width, &bias[o])
	}
}

// checkRows panics unless rows rows of width elements at stride ld fit in
// h, bias holds width elements and width is a multiple of lanes.
func checkRows(op string, lh, ld, lbias, rows, width, lanes int) bool {
	if rows <= 0 || width <= 0 {
		return false
	}
	if width%lanes != 0 || lbias < width || (rows > 1 && ld < width) || (rows-1)*ld+width > lh {
		panic(fmt.Sprintf("nn: %s: %d rows of %d (stride %d) in %d elements, %d biases", op, rows, width, ld, lh, lbias))
	}
	return true
}

func biasAct256(h []float32, ld int, bias []float32, rows, width int, act Activation, hidden bool) {
	if !checkRows("biasAct", len(h), ld, len(bias), rows, width, 8) {
		return
	}
	if hidden && act == Tanh {
		tanhRowsAVX2(&h[0], 4*ld, &bias[0], rows, width)
		return
	}
	biasRowsAVX2(&h[0], 4*ld, &bias[0], rows, width, hidden)
}

func biasAct512(h []float32, ld int, bias []float32, rows, width int, act Activation, hidden bool) {
	if !checkRows("biasAct", len(h), ld, len(bias), rows, width, 16) {
		return
	}
	if hidden && act == Tanh {
		tanhRowsAVX512(&h[0], 4*ld, &bias[0], rows, width)
		return
	}
	biasRowsAVX2(&h[0], 4*ld, &bias[0], rows, width, hidden)
}

// actGradAVX2 is kernelSet.actGrad; len(d) is a multiple of 8 (rows padded
// to the lanes).
func actGradAVX2(d, h []float32, act Activation) {
	n := len(d)
	if n == 0 {
		return
	}
	if n%8 != 0 || len(h) < n {
		panic(fmt.Sprintf("nn: actGrad: %d gradients, %d activations", n, len(h)))
	}
	if act == ReLU {
		actGradReLUAVX2(&d[0], &h[0], n)
		return
	}
	actGradTanhAVX2(&d[0], &h[0], n)
}

// actGradAVX512 is actGradAVX2 with tanh's on 16 lanes when n is a
// multiple of 16 (rows padded to the AVX-512 lanes): the same operations
// lane for lane, so the same bits.
func actGradAVX512(d, h []float32, act Activation) {
	n := len(d)
	if act != Tanh || n%16 != 0 || n == 0 {
		actGradAVX2(d, h, act)
		return
	}
	if len(h) < n {
		panic(fmt.Sprintf("nn: actGrad: %d gradients, %d activations", n, len(h)))
	}
	actGradTanhAVX512(&d[0], &h[0], n)
}

// colSumAVX512Go is colSumAVX2Go on 16 lanes when width is a multiple of
// 16: each column's sum runs over the rows in the same order.
func colSumAVX512Go(dst, src []float32, ld, rows, width int) {
	if width%16 != 0 {
		colSumAVX2Go(dst, src, ld, rows, width)
		return
	}
	if rows <= 0 || width <= 0 {
		return
	}
	if len(dst) < width || (rows > 1 && ld < width && ld != 0) || (rows-1)*ld+width > len(src) {
		panic(fmt.Sprintf("nn: colSum: %d rows of %d (stride %d) in %d elements into %d", rows, width, ld, len(src), len(dst)))
	}
	colSumAVX512(&dst[0], &src[0], 4*ld, rows, width)
}

func colSumAVX2Go(dst, src []float32, ld, rows, width int) {
	if rows <= 0 || width <= 0 {
		return
	}
	if width%8 != 0 || len(dst) < width || (rows > 1 && ld < width && ld != 0) || (rows-1)*ld+width > len(src) {
		panic(fmt.Sprintf("nn: colSum: %d rows of %d (stride %d) in %d elements into %d", rows, width, ld, len(src), len(dst)))
	}
	colSumAVX2(&dst[0], &src[0], 4*ld, rows, width)
}

func adamAVX2Go(p, g, m, v []float32, c adamCoef) {
	n := len(p)
	g, m, v = g[:n], m[:n], v[:n]
	k := [7]float32{float32(c.b1), float32(1 - c.b1), float32(c.b2), float32(1 - c.b2), float32(c.step), float32(1 / c.bc2), float32(c.eps)}
	i := n &^ 7
	if i > 0 {
		adamAVX2(&p[0], &g[0], &m[0], &v[0], i, &k)
	}
	adamGo(p[i:], g[i:], m[i:], v[i:], c)
}

// lossCols holds a chunk of up to tileRows rows of the loss kernel column by
// column, for the vector loss kernels, padded to whole vectors with rows
// that are finite and marked invalid.
type lossCols struct {
	z0, z1, z2, q0, q1, q2, a, adv, beh, valid [tileRows]float32
	g0, g1, g2                                 [tileRows]float32

	// tmp is lossVecAVX2's scratch: a group of rows' log-probabilities,
	// probabilities and log-ratios to the reference (the kernel reads the
	// fields by offset, in this order).
	tmp [9][8]float32
}

// gather fills the first m rows of c from logits z (row stride ld) and the
// batch rows r0.., and pads them to a multiple of lanes.
func (c *lossCols) gather(z []float32, ld int, b *Batch[float32], r0, m, lanes int) {
	for i := range m {
		zr := z[i*ld : i*ld+NumActions]
		c.z0[i], c.z1[i], c.z2[i] = zr[0], zr[1], zr[2]
		k := r0 + i
		ref := b.RefLogp[k*NumActions : k*NumActions+NumActions]
		c.q0[i], c.q1[i], c.q2[i] = ref[0], ref[1], ref[2]
		c.a[i] = float32(b.Actions[k])
		c.adv[i], c.beh[i], c.valid[i] = b.Adv[k], b.BehLogp[k], 1
	}
	for i := m; i < (m+lanes-1)/lanes*lanes; i++ {
		c.z0[i], c.z1[i], c.z2[i], c.q0[i], c.q1[i], c.q2[i] = 0, 0, 0, 0, 0, 0
		c.a[i], c.adv[i], c.beh[i], c.valid[i] = 0, 0, 0, 0
	}
}

// lossAVX2 is kernelSet.loss in float32, 8 rows to a vector. Each chunk of
// up to tileRows rows goes through three phases: a scalar gather of the
// logits, reference log-probabilities, actions, advantages and behaviour
// log-probabilities into columns; the vector loss (lossVecAVX2); and the
// scalar scatter of the gradient and the float64 sums of the statistics.
func lossAVX2(dz, z []float32, ld int, b *Batch[float32], r0, rows int, cfg LossConfig, invB float64, s *lossSums) {
	var c lossCols
	var k [5][8]float32
	for i, v := range [5]float64{1 - cfg.EpsLow, 1 + cfg.EpsHigh, cfg.Beta, cfg.Entropy, invB} {
		for l := range k[i] {
			k[i][l] = float32(v)
		}
	}
	for c0 := 0; c0 < rows; c0 += tileRows {
		m := min(tileRows, rows-c0)
		c.gather(z[c0*ld:], ld, b, r0+c0, m, 8)
		var out [3][8]float32
		lo, hi := lossVecAVX2(&c.z0[0], m, &k, &out)
		s.addLanes(lo, hi, &out, cfg)
		for i := range m {
			dr := dz[(c0+i)*ld : (c0+i+1)*ld]
			dr[0], dr[1], dr[2] = c.g0[i], c.g1[i], c.g2[i]
			clear(dr[NumActions:])
		}
	}
}

// lossAVX512 is kernelSet.loss in float32 on AVX-512: lossRowsAVX512, 16
// rows to a vector, reads the logits and the batch's columns where they
// are and writes the gradient's three columns into the rows of dz, whose
// padding columns it leaves as they are: zero, as every loss kernel keeps
// them (the buffer starts zeroed and nothing else writes it). The float32
// operations are lossVecAVX2's lane for lane and the statistics are summed
// in the same order, so the bits are lossAVX2's.
func lossAVX512(dz, z []float32, ld int, b *Batch[float32], r0, rows int, cfg LossConfig, invB float64, s *lossSums) {
	if rows <= 0 {
		return
	}
	n := r0 + rows
	if ld < NumActions || r0 < 0 || (rows-1)*ld+NumActions > min(len(z), len(dz)) || 16*ld > 1<<29 ||
		n > len(b.Actions) || n > len(b.Adv) || n > len(b.BehLogp) || n*NumActions > len(b.RefLogp) {
		panic(fmt.Sprintf("nn: loss: %d rows from %d (stride %d): operands out of bounds", rows, r0, ld))
	}
	var k [5][16]float32
	for i, v := range [5]float64{1 - cfg.EpsLow, 1 + cfg.EpsHigh, cfg.Beta, cfg.Entropy, invB} {
		for l := range k[i] {
			k[i][l] = float32(v)
		}
	}
	var idx [2][16]int32
	for j := range idx[0] {
		idx[0][j], idx[1][j] = int32(4*j*ld), int32(4*NumActions*j)
	}
	// The actions are widened from whole 16-byte loads (masked, but a
	// widening load need not suppress faults past the slice): a copy.
	var act [tileRows]uint8
	for c0 := 0; c0 < rows; c0 += tileRows {
		m, r := min(tileRows, rows-c0), r0+c0
		copy(act[:], b.Actions[r:r+m])
		var out [3][8]float32
		lo, hi := lossRowsAVX512(&z[c0*ld], &dz[c0*ld], 4*ld, &b.RefLogp[r*NumActions], &act[0], &b.Adv[r], &b.BehLogp[r], m, &k, &idx, &out)
		s.addLanes(lo, hi, &out, cfg)
	}
}

// addLanes adds a vector loss kernel's clip counts and its eight lanes of
// summed terms (policy, KL, entropy), lane by lane: both loss kernels'
// statistics in one order, so their bits agree.
func (s *lossSums) addLanes(lo, hi int, out *[3][8]float32, cfg LossConfig) {
	s.clipLow += lo
	s.clipHigh += hi
	for i := range 8 {
		p, kl, e := float64(out[0][i]), float64(out[1][i]), float64(out[2][i])
		s.pol += p
		s.kl += kl
		s.ent += e
		s.loss += p + cfg.Beta*kl - cfg.Entropy*e
	}
}

// allFinite32 reports whether s holds no NaN or ±Inf; the vector kernel
// takes whole blocks of 32.
func allFinite32(s []float32) bool {
	n := len(s) &^ 31
	if n > 0 && !allFiniteAVX2(&s[0], n) {
		return false
	}
	for _, v := range s[n:] {
		if v-v != 0 {
			return false
		}
	}
	return true
}

// logSoftmaxAVX2 is kernelSet.logSoftmax: the logits gathered into columns
// (padded to whole vectors with zeros), logSoftmax3AVX2, and the results
// scattered into rows.
func logSoftmaxAVX2(dst, z []float32, ld, rows int) {
	var c [NumActions][tileRows]float32
	for c0 := 0; c0 < rows; c0 += tileRows {
		m := min(tileRows, rows-c0)
		for i := range m {
			zr := z[(c0+i)*ld : (c0+i)*ld+NumActions]
			c[0][i], c[1][i], c[2][i] = zr[0], zr[1], zr[2]
		}
		for i := m; i < (m+7)&^7; i++ {
			c[0][i], c[1][i], c[2][i] = 0, 0, 0
		}
		logSoftmax3AVX2(&c[0][0], m)
		for i := range m {
			d := dst[(c0+i)*NumActions : (c0+i+1)*NumActions]
			d[0], d[1], d[2] = c[0][i], c[1][i], c[2][i]
		}
	}
}

// sumSquares32 returns Σ s[i]² in float64 over the first n elements of s, a
// whole number of the vector kernel's blocks.
func sumSquares32(s []float32) (float64, int) {
	n := len(s) &^ 15
	if n == 0 {
		return 0, 0
	}
	return sumSquaresAVX2(&s[0], n), n
}

// gradKernel is the signature of the generated gemmTanhGrad<R>x4AVX512
// kernels: gemm<R>x4AVX512 with C multiplied by 1 − h² before the store,
// h in C's layout.
type gradKernel func(c *float32, ldc int, a *float32, sp, st int, b *float32, ldb int, n int, acc bool, h *float32)

var gemmTanhGrad512 = [7]gradKernel{nil, gemmTanhGrad1x4AVX512, gemmTanhGrad2x4AVX512, gemmTanhGrad3x4AVX512, gemmTanhGrad4x4AVX512, gemmTanhGrad5x4AVX512, gemmTanhGrad6x4AVX512}

// gemmTanhGradAVX512 is kernelSet.gemmTanhGrad: gemm's C = A·B (no
// accumulation) and actGradTanhAVX512's multiply by 1 − h² in one pass,
// the multiply in the micro-kernels' epilogue, for widths that are whole
// 4-vector panels (the 64-wide hidden layers); it reports false, having
// done nothing, for other widths.
func gemmTanhGradAVX512(c []float32, ldc int, a []float32, sp, st int, b []float32, ldb int, np, nj, n int, h []float32) bool {
	if nj%64 != 0 || !checkGemm(len(c), ldc, len(a), sp, st, len(b), ldb, np, nj, n, 16) {
		return false
	}
	if len(h) < (np-1)*ldc+nj {
		panic(fmt.Sprintf("nn: gemmTanhGrad: %d activations for %d rows of %d (stride %d)", len(h), np, nj, ldc))
	}
	const z = 4
	for j := 0; j < nj; j += 64 {
		for p := 0; p < np; p += 6 {
			r := min(6, np-p)
			gemmTanhGrad512[r](&c[p*ldc+j], z*ldc, &a[p*sp], z*sp, z*st, &b[j], z*ldb, n, false, &h[p*ldc+j])
		}
	}
	return true
}

// transpose512 is kernelSet.transpose: transposeAVX512 after one check of
// the operands' extent (the kernel gathers 16 rows of src per column and
// stores 16 elements of a row of dst, both masked to the rows there are).
func transpose512(dst []float32, ldd int, src []float32, lds, rows, cols int) {
	if rows <= 0 || cols <= 0 {
		return
	}
	if lds < 0 || ldd < 0 || (rows > 1 && lds < cols) || (cols > 1 && ldd < rows) ||
		(rows-1)*lds+cols > len(src) || (cols-1)*ldd+rows > len(dst) || 15*lds > 1<<29 {
		panic(fmt.Sprintf("nn: transpose: %d×%d (strides %d, %d) from %d elements into %d", rows, cols, lds, ldd, len(src), len(dst)))
	}
	var idx [16]int32
	for j := range idx {
		idx[j] = int32(4 * j * lds)
	}
	transposeAVX512(&dst[0], 4*ldd, &src[0], 4*lds, rows, cols, &idx)
}
