package nn

// The vector kernels simd_*_amd64.go are generated from one template.
//go:generate go run simd_gen.go

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

	// dot, when not nil, computes c[r*ldc+o] = Σ_{k<width} h[r*ldh+k]·w[o*ldw+k]
	// for r < rows and o < out rounded up to 4 (w has that many rows, zero
	// beyond out; width a multiple of lanes). It replaces gemm for an output
	// layer much narrower than a vector: a 3-wide gemm would use 3 of 16 lanes.
	dot func(c []T, ldc int, h []T, ldh int, w []T, ldw int, rows, out, width int)

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
func checkGemm(lc, ldc, la, sp, st, lb, ldb, np, nj, n, lanes int) bool {
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

// gemmGo is kernelSet.gemm in plain Go. Like the vector kernels it checks
// the operands' extent once, then runs micro-kernels of 2 rows × 4 columns
// (8 accumulators, within the 15 float registers) that walk the operands
// with pointers, free of bounds checks; 2 × 1..3 kernels take the last
// columns. Scalar code retires at most two multiplies or adds a cycle, and
// these kernels run close to that: larger blocks (3×4, 4×4) spill, and
// float32/float64 copies of the generic code compile to the same loops.
func gemmGo[T Float](c []T, ldc int, a []T, sp, st int, b []T, ldb int, np, nj, n int, acc bool) {
	if !checkGemm(len(c), ldc, len(a), sp, st, len(b), ldb, np, nj, n, 1) {
		return
	}
	z := int(unsafe.Sizeof(c[0]))
	cp, ap, bp := unsafe.Pointer(unsafe.SliceData(c)), unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
	for p := 0; p < np; p += 2 {
		rows := min(2, np-p)
		ci, ai := unsafe.Add(cp, z*p*ldc), unsafe.Add(ap, z*p*sp)
		j := 0
		for ; j+4 <= nj; j += 4 {
			if rows == 2 {
				go2x4[T](unsafe.Add(ci, z*j), z*ldc, ai, z*sp, z*st, unsafe.Add(bp, z*j), z*ldb, n, acc)
			} else {
				go1x4[T](unsafe.Add(ci, z*j), ai, z*st, unsafe.Add(bp, z*j), z*ldb, n, acc)
			}
		}
		if j == nj {
			continue
		}
		// The last one to three columns: an output layer narrower than 4
		// (3 actions) lands here, so a pair of rows still runs 2–6
		// independent sums rather than one latency-bound chain.
		cj, bj := unsafe.Add(ci, z*j), unsafe.Add(bp, z*j)
		switch {
		case rows == 1:
			for ; j < nj; j++ {
				go1x1[T](unsafe.Add(ci, z*j), ai, z*st, unsafe.Add(bp, z*j), z*ldb, n, acc)
			}
		case nj-j == 3:
			go2x3[T](cj, z*ldc, ai, z*sp, z*st, bj, z*ldb, n, acc)
		case nj-j == 2:
			go2x2[T](cj, z*ldc, ai, z*sp, z*st, bj, z*ldb, n, acc)
		default:
			go2x1[T](cj, z*ldc, ai, z*sp, z*st, bj, z*ldb, n, acc)
		}
	}
}

// at returns the T at p plus off bytes.
func at[T Float](p unsafe.Pointer, off int) *T { return (*T)(unsafe.Add(p, off)) }

// go2x4 is gemmGo's micro-kernel for rows 0 and 1 of C, columns 0..3;
// strides are in bytes and n ≥ 1. The k loop is unrolled twice, which
// spares half the loop's bookkeeping and the register moves the compiler
// adds at its back edge (about 10% faster); the sums still run in order
// t = 0..n−1, so the results are those of the plain loop.
func go2x4[T Float](c unsafe.Pointer, ldc int, a unsafe.Pointer, sp, st int, b unsafe.Pointer, ldb int, n int, acc bool) {
	var s00, s01, s02, s03, s10, s11, s12, s13 T
	z := int(unsafe.Sizeof(s00))
	c1, a1 := unsafe.Add(c, ldc), unsafe.Add(a, sp)
	if acc {
		s00, s01, s02, s03 = *at[T](c, 0), *at[T](c, z), *at[T](c, 2*z), *at[T](c, 3*z)
		s10, s11, s12, s13 = *at[T](c1, 0), *at[T](c1, z), *at[T](c1, 2*z), *at[T](c1, 3*z)
	}
	// Pointers never step past the operands' last element: the loop
	// advances only while at least three steps remain.
	for ; n > 2; n -= 2 {
		x0, x1 := *at[T](a, 0), *at[T](a1, 0)
		b0, b1, b2, b3 := *at[T](b, 0), *at[T](b, z), *at[T](b, 2*z), *at[T](b, 3*z)
		s00 += x0 * b0
		s01 += x0 * b1
		s02 += x0 * b2
		s03 += x0 * b3
		s10 += x1 * b0
		s11 += x1 * b1
		s12 += x1 * b2
		s13 += x1 * b3
		x0, x1 = *at[T](a, st), *at[T](a1, st)
		b = unsafe.Add(b, ldb)
		b0, b1, b2, b3 = *at[T](b, 0), *at[T](b, z), *at[T](b, 2*z), *at[T](b, 3*z)
		s00 += x0 * b0
		s01 += x0 * b1
		s02 += x0 * b2
		s03 += x0 * b3
		s10 += x1 * b0
		s11 += x1 * b1
		s12 += x1 * b2
		s13 += x1 * b3
		a, a1, b = unsafe.Add(a, 2*st), unsafe.Add(a1, 2*st), unsafe.Add(b, ldb)
	}
	x0, x1 := *at[T](a, 0), *at[T](a1, 0)
	b0, b1, b2, b3 := *at[T](b, 0), *at[T](b, z), *at[T](b, 2*z), *at[T](b, 3*z)
	s00 += x0 * b0
	s01 += x0 * b1
	s02 += x0 * b2
	s03 += x0 * b3
	s10 += x1 * b0
	s11 += x1 * b1
	s12 += x1 * b2
	s13 += x1 * b3
	if n == 2 {
		x0, x1 = *at[T](a, st), *at[T](a1, st)
		b = unsafe.Add(b, ldb)
		b0, b1, b2, b3 = *at[T](b, 0), *at[T](b, z), *at[T](b, 2*z), *at[T](b, 3*z)
		s00 += x0 * b0
		s01 += x0 * b1
		s02 += x0 * b2
		s03 += x0 * b3
		s10 += x1 * b0
		s11 += x1 * b1
		s12 += x1 * b2
		s13 += x1 * b3
	}
	*at[T](c, 0), *at[T](c, z), *at[T](c, 2*z), *at[T](c, 3*z) = s00, s01, s02, s03
	*at[T](c1, 0), *at[T](c1, z), *at[T](c1, 2*z), *at[T](c1, 3*z) = s10, s11, s12, s13
}

// go2x3, go2x2 and go2x1 are go2x4 for the last columns of C.
func go2x3[T Float](c unsafe.Pointer, ldc int, a unsafe.Pointer, sp, st int, b unsafe.Pointer, ldb int, n int, acc bool) {
	var s00, s01, s02, s10, s11, s12 T
	z := int(unsafe.Sizeof(s00))
	c1, a1 := unsafe.Add(c, ldc), unsafe.Add(a, sp)
	if acc {
		s00, s01, s02 = *at[T](c, 0), *at[T](c, z), *at[T](c, 2*z)
		s10, s11, s12 = *at[T](c1, 0), *at[T](c1, z), *at[T](c1, 2*z)
	}
	for t := 1; ; t++ {
		x0, x1 := *at[T](a, 0), *at[T](a1, 0)
		b0, b1, b2 := *at[T](b, 0), *at[T](b, z), *at[T](b, 2*z)
		s00 += x0 * b0
		s01 += x0 * b1
		s02 += x0 * b2
		s10 += x1 * b0
		s11 += x1 * b1
		s12 += x1 * b2
		if t == n {
			break
		}
		a, a1, b = unsafe.Add(a, st), unsafe.Add(a1, st), unsafe.Add(b, ldb)
	}
	*at[T](c, 0), *at[T](c, z), *at[T](c, 2*z) = s00, s01, s02
	*at[T](c1, 0), *at[T](c1, z), *at[T](c1, 2*z) = s10, s11, s12
}

func go2x2[T Float](c unsafe.Pointer, ldc int, a unsafe.Pointer, sp, st int, b unsafe.Pointer, ldb int, n int, acc bool) {
	var s00, s01, s10, s11 T
	z := int(unsafe.Sizeof(s00))
	c1, a1 := unsafe.Add(c, ldc), unsafe.Add(a, sp)
	if acc {
		s00, s01 = *at[T](c, 0), *at[T](c, z)
		s10, s11 = *at[T](c1, 0), *at[T](c1, z)
	}
	for t := 1; ; t++ {
		x0, x1 := *at[T](a, 0), *at[T](a1, 0)
		b0, b1 := *at[T](b, 0), *at[T](b, z)
		s00 += x0 * b0
		s01 += x0 * b1
		s10 += x1 * b0
		s11 += x1 * b1
		if t == n {
			break
		}
		a, a1, b = unsafe.Add(a, st), unsafe.Add(a1, st), unsafe.Add(b, ldb)
	}
	*at[T](c, 0), *at[T](c, z) = s00, s01
	*at[T](c1, 0), *at[T](c1, z) = s10, s11
}

func go2x1[T Float](c unsafe.Pointer, ldc int, a unsafe.Pointer, sp, st int, b unsafe.Pointer, ldb int, n int, acc bool) {
	var s0, s1 T
	c1, a1 := unsafe.Add(c, ldc), unsafe.Add(a, sp)
	if acc {
		s0, s1 = *at[T](c, 0), *at[T](c1, 0)
	}
	for t := 1; ; t++ {
		x := *at[T](b, 0)
		s0 += *at[T](a, 0) * x
		s1 += *at[T](a1, 0) * x
		if t == n {
			break
		}
		a, a1, b = unsafe.Add(a, st), unsafe.Add(a1, st), unsafe.Add(b, ldb)
	}
	*at[T](c, 0), *at[T](c1, 0) = s0, s1
}

func go1x4[T Float](c unsafe.Pointer, a unsafe.Pointer, st int, b unsafe.Pointer, ldb int, n int, acc bool) {
	var s0, s1, s2, s3 T
	z := int(unsafe.Sizeof(s0))
	if acc {
		s0, s1, s2, s3 = *at[T](c, 0), *at[T](c, z), *at[T](c, 2*z), *at[T](c, 3*z)
	}
	for t := 1; ; t++ {
		x := *at[T](a, 0)
		s0 += x * *at[T](b, 0)
		s1 += x * *at[T](b, z)
		s2 += x * *at[T](b, 2*z)
		s3 += x * *at[T](b, 3*z)
		if t == n {
			break
		}
		a, b = unsafe.Add(a, st), unsafe.Add(b, ldb)
	}
	*at[T](c, 0), *at[T](c, z), *at[T](c, 2*z), *at[T](c, 3*z) = s0, s1, s2, s3
}

func go1x1[T Float](c unsafe.Pointer, a unsafe.Pointer, st int, b unsafe.Pointer, ldb int, n int, acc bool) {
	var s T
	if acc {
		s = *at[T](c, 0)
	}
	for t := 1; ; t++ {
		s += *at[T](a, 0) * *at[T](b, 0)
		if t == n {
			break
		}
		a, b = unsafe.Add(a, st), unsafe.Add(b, ldb)
	}
	*at[T](c, 0) = s
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
		case unsafe.Sizeof(bias[0]) == 4:
			tanhBias32(asF32(row), asF32(bias))
		default:
			for j, b := range bias {
				row[j] = T(math.Tanh(float64(row[j] + b)))
			}
		}
	}
}

// asF32 views a slice of a 4-byte T, whose underlying type is then float32,
// as []float32, so that the float32 loops run for named types too.
func asF32[T Float](s []T) []float32 {
	return unsafe.Slice((*float32)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}

// tanhBias32 sets row[j] = tanh32(row[j] + bias[j]): tanh in float32 is
// the rational approximation tanh32, what the vector kernels compute.
// The loop is its own non-generic function so that the call to tanh32 is
// direct, not through tanhT's generic wrapper.
func tanhBias32(row, bias []float32) {
	row = row[:len(bias)]
	for j, b := range bias {
		row[j] = tanh32(row[j] + b)
	}
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
