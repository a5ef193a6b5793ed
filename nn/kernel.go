package nn

import (
	"fmt"
	"math"
	"unsafe"
)

// kernelSet is the table of inner loops a Workspace runs. One set exists per
// instruction set (AVX-512, AVX2, portable Go) and precision; a Workspace picks
// the best set the CPU supports when it is built and calls it through this
// table, so the drivers in workspace*.go are written once.
//
// Every loop works on row-major matrices whose rows are padded to a multiple
// of lanes elements, the padding held at zero: a vector kernel then never
// needs a tail, whatever the layer widths are.
type kernelSet[T Float] struct {
	name  string // "avx512", "avx2" or "go"
	lanes int    // row padding unit, the vector width in elements

	// gemm is the one matrix product of the step. For p < np and j < nj
	// (nj a multiple of lanes):
	//
	//	c[p*ldc+j] = [c[p*ldc+j] if acc] + Σ_{t<n} a[p*sp+t*st] · b[t*ldb+j]
	//
	// With (sp, st) = (lda, 1) it is C = A·B (forward, backward to the
	// inputs); with (1, lda) it is C += Aᵀ·B (weight gradients).
	gemm func(c []T, ldc int, a []T, sp, st int, b []T, ldb int, np, nj, n int, acc bool)

	// biasAct sets h[r*ld+j] = f(h[r*ld+j] + bias[j]) for r < rows, j < width,
	// f the activation when hidden and the identity otherwise.
	biasAct func(h []T, ld int, bias []T, rows, width int, act Activation, hidden bool)

	// actGrad multiplies d by the derivative of the activation, given the
	// activation's output h (same length as d): 1−h² for tanh, 1[h>0] for ReLU.
	actGrad func(d, h []T, act Activation)

	// colSum adds the column sums of rows×width src (row stride ld) to dst.
	colSum func(dst, src []T, ld, rows, width int)

	// loss is the loss kernel of one tile; see lossRows.
	loss func(dz, z []T, ld int, b *Batch[T], r0, rows int, cfg LossConfig, invB float64, s *lossSums)

	// adam is one Adam step on the flat slices; see adamCoef.
	adam func(p, g, m, v []T, c adamCoef)
}

// adamCoef are the scalars of one Adam step, bias corrections folded in:
// m = b1·m + (1−b1)·g; v = b2·v + (1−b2)·g²; p −= step·m / (√v/bc2 + eps).
type adamCoef struct {
	b1, b2, step, bc2, eps float64
}

// checkGemm panics unless every element a gemm call with these arguments
// addresses lies inside its slice, so that the vector kernels can walk the
// operands with unchecked pointers. It reports whether there is work.
func checkGemm(lc, ldc, la, sp, st, lb, ldb, np, nj, n, lanes int, acc bool) bool {
	if np == 0 || nj == 0 {
		return false
	}
	switch {
	case np < 0 || nj < 0 || n < 1 || ldc < 0 || sp < 0 || st < 0 || ldb < 0:
		panic(fmt.Sprintf("nn: gemm: np=%d nj=%d n=%d ldc=%d sp=%d st=%d ldb=%d", np, nj, n, ldc, sp, st, ldb))
	case nj%lanes != 0:
		panic(fmt.Sprintf("nn: gemm: width %d is not a multiple of %d lanes", nj, lanes))
	case (np > 1 && ldc < nj) || (np-1)*ldc+nj > lc:
		panic(fmt.Sprintf("nn: gemm: C of %d elements, %d rows of %d with stride %d", lc, np, nj, ldc))
	case (np-1)*sp+(n-1)*st >= la:
		panic(fmt.Sprintf("nn: gemm: A of %d elements, strides %d and %d for %d×%d", la, sp, st, np, n))
	case (n > 1 && ldb < nj) || (n-1)*ldb+nj > lb:
		panic(fmt.Sprintf("nn: gemm: B of %d elements, %d rows of %d with stride %d", lb, n, nj, ldb))
	}
	return true
}

// bestSet returns the fastest kernel set for T when T is float32 or float64;
// ok is false for other types with those underlying types.
func bestSet[T Float]() (k *kernelSet[T], ok bool) {
	if k, ok := any(kernelSets32()[0]).(*kernelSet[T]); ok {
		return k, true
	}
	if k, ok := any(kernelSets64()[0]).(*kernelSet[T]); ok {
		return k, true
	}
	return nil, false
}

// kernelSetsFor returns every kernel set this CPU and build can run for T,
// fastest first, the portable set last.
func kernelSetsFor[T Float]() []*kernelSet[T] {
	var out []*kernelSet[T]
	for _, k := range kernelSets32() {
		if k, ok := any(k).(*kernelSet[T]); ok {
			out = append(out, k)
		}
	}
	for _, k := range kernelSets64() {
		if k, ok := any(k).(*kernelSet[T]); ok {
			out = append(out, k)
		}
	}
	if len(out) == 0 {
		out = append(out, portableSet[T]())
	}
	return out
}

// KernelName reports which kernel set a Workspace[T] uses on this machine
// and build: "avx512", "avx2" or "go".
func KernelName[T Float]() string {
	if k, ok := bestSet[T](); ok {
		return k.name
	}
	return "go"
}

// portableSet is the pure-Go kernel set. It builds and runs everywhere and is
// what the SIMD sets are tested against.
func portableSet[T Float]() *kernelSet[T] {
	return &kernelSet[T]{
		name:    "go",
		lanes:   1,
		gemm:    gemmGo[T],
		biasAct: biasActGo[T],
		actGrad: actGradGo[T],
		colSum:  colSumGo[T],
		loss:    lossRows[T],
		adam:    adamGo[T],
	}
}

// gemmGo is kernelSet.gemm in plain Go, blocked 2 rows × 4 columns so the
// accumulators stay in registers.
func gemmGo[T Float](c []T, ldc int, a []T, sp, st int, b []T, ldb int, np, nj, n int, acc bool) {
	p := 0
	for ; p+2 <= np; p += 2 {
		c0 := c[p*ldc : p*ldc+nj]
		c1 := c[(p+1)*ldc : (p+1)*ldc+nj]
		j := 0
		for ; j+4 <= nj; j += 4 {
			var s00, s01, s02, s03, s10, s11, s12, s13 T
			if acc {
				s00, s01, s02, s03 = c0[j], c0[j+1], c0[j+2], c0[j+3]
				s10, s11, s12, s13 = c1[j], c1[j+1], c1[j+2], c1[j+3]
			}
			o, ob := p*sp, j
			for t := 0; t < n; t++ {
				bt := b[ob : ob+4 : ob+4]
				x0, x1 := a[o], a[o+sp]
				s00 += x0 * bt[0]
				s01 += x0 * bt[1]
				s02 += x0 * bt[2]
				s03 += x0 * bt[3]
				s10 += x1 * bt[0]
				s11 += x1 * bt[1]
				s12 += x1 * bt[2]
				s13 += x1 * bt[3]
				o += st
				ob += ldb
			}
			c0[j], c0[j+1], c0[j+2], c0[j+3] = s00, s01, s02, s03
			c1[j], c1[j+1], c1[j+2], c1[j+3] = s10, s11, s12, s13
		}
		for ; j < nj; j++ {
			var s0, s1 T
			if acc {
				s0, s1 = c0[j], c1[j]
			}
			o, ob := p*sp, j
			for t := 0; t < n; t++ {
				s0 += a[o] * b[ob]
				s1 += a[o+sp] * b[ob]
				o += st
				ob += ldb
			}
			c0[j], c1[j] = s0, s1
		}
	}
	if p < np {
		c0 := c[p*ldc : p*ldc+nj]
		j := 0
		for ; j+4 <= nj; j += 4 {
			var s0, s1, s2, s3 T
			if acc {
				s0, s1, s2, s3 = c0[j], c0[j+1], c0[j+2], c0[j+3]
			}
			o, ob := p*sp, j
			for t := 0; t < n; t++ {
				bt := b[ob : ob+4 : ob+4]
				x := a[o]
				s0 += x * bt[0]
				s1 += x * bt[1]
				s2 += x * bt[2]
				s3 += x * bt[3]
				o += st
				ob += ldb
			}
			c0[j], c0[j+1], c0[j+2], c0[j+3] = s0, s1, s2, s3
		}
		for ; j < nj; j++ {
			var s T
			if acc {
				s = c0[j]
			}
			o, ob := p*sp, j
			for t := 0; t < n; t++ {
				s += a[o] * b[ob]
				o += st
				ob += ldb
			}
			c0[j] = s
		}
	}
}

func biasActGo[T Float](h []T, ld int, bias []T, rows, width int, act Activation, hidden bool) {
	bias = bias[:width]
	for r := 0; r < rows; r++ {
		row := h[r*ld : r*ld+width]
		switch {
		case !hidden:
			for j, b := range bias {
				row[j] += b
			}
		case act == ReLU:
			for j, b := range bias {
				row[j] = max(row[j]+b, 0)
			}
		default:
			for j, b := range bias {
				row[j] = tanhT(row[j] + b)
			}
		}
	}
}

// tanhT is tanh in T's precision: the rational approximation tanh32 for
// 4-byte floats (what the vector kernels compute), math.Tanh otherwise.
func tanhT[T Float](x T) T {
	if unsafe.Sizeof(x) == 4 {
		return T(tanh32(float32(x)))
	}
	return T(math.Tanh(float64(x)))
}

func actGradGo[T Float](d, h []T, act Activation) {
	h = h[:len(d)]
	if act == ReLU {
		for i, v := range h {
			if !(v > 0) {
				d[i] = 0
			}
		}
		return
	}
	for i, v := range h {
		d[i] *= 1 - v*v
	}
}

func colSumGo[T Float](dst, src []T, ld, rows, width int) {
	dst = dst[:width]
	for r := 0; r < rows; r++ {
		row := src[r*ld : r*ld+width]
		for j, v := range row {
			dst[j] += v
		}
	}
}

// adamGo is Adam.Update's loop with the coefficients precomputed.
func adamGo[T Float](p, g, m, v []T, c adamCoef) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	for i, gi := range g {
		gf := float64(gi)
		mi := c.b1*float64(m[i]) + (1-c.b1)*gf
		vi := c.b2*float64(v[i]) + (1-c.b2)*gf*gf
		m[i], v[i] = T(mi), T(vi)
		p[i] -= T(c.step * mi / (math.Sqrt(vi)/c.bc2 + c.eps))
	}
}
