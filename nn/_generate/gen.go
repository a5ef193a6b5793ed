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
package main

import (
	"flag"
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
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

// The constant tables: each value repeated over 64 bytes, so that a YMM or a
// ZMM operand can read it from memory.
var (
	tanhK Mem // tanhClamp, −tanhClamp, 2, then P13…P1, Q6…Q0
	oneK  Mem // 1.0
)

// tanh32's coefficients; nn/kernel_tanh.go holds the same values.
const (
	tanhClamp = 7.99881172180175781

	tanhP1  = 4.89352455891786e-03
	tanhP3  = 6.37261928875436e-04
	tanhP5  = 1.48572235717979e-05
	tanhP7  = 5.12229709037114e-08
	tanhP9  = -8.60467152213735e-11
	tanhP11 = 2.00018790482477e-13
	tanhP13 = -2.76076847742355e-16

	tanhQ0 = 4.89352518554385e-03
	tanhQ2 = 2.26843463243900e-03
	tanhQ4 = 1.18534705686654e-04
	tanhQ6 = 1.19825839466702e-06
)

// table emits a read-only table of float32 values, each repeated 16 times.
func table(name string, vals ...float32) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i, v := range vals {
		for l := 0; l < 16; l++ {
			DATA(64*i+4*l, U32(math.Float32bits(v)))
		}
	}
	return m
}

func consts() {
	tanhK = table("tanhk", tanhClamp, -tanhClamp, 2,
		tanhP13, tanhP11, tanhP9, tanhP7, tanhP5, tanhP3, tanhP1,
		tanhQ6, tanhQ4, tanhQ2, tanhQ0)
	oneK = table("onek", 1)
}

// entry is entry i of a constant table.
func entry(t Mem, i int) Mem { return t.Offset(64 * i) }

// gemmKernel emits gemm<R>x<V><ISA>: for rows 0..R−1 of C and V vectors of
// columns,
//
//	C[p, j] = [C[p, j] if acc] + Σ_{t<n} A[p·sp + t·st] · B[t·ldb + j]
//
// with every stride in bytes and n ≥ 1. The k loop loads V vectors of B,
// then, for each row, broadcasts A's element and runs V multiply-adds into
// that row's accumulators: the sums run in order t = 0..n−1. Rows of A and
// C are addressed from two base pointers (rows 0 and 3) plus one or two
// strides, which keeps six rows within the general registers.
func gemmKernel(k isa, R, V int) { gemmKernelEpi(k, R, V, false) }

// gemmKernelEpi emits gemmKernel's kernel, or with tanhGrad
// gemmTanhGrad<R>x<V><ISA>: the same products, each element then
// multiplied by 1 − h², h the float32 at C's offset from the extra
// argument h, with actGradTanhAVX512's operations, before the store —
// ∂H = ∂Z·W and tanh's gradient in one pass, the products never re-read.
func gemmKernelEpi(k isa, R, V int, tanhGrad bool) {
	name := fmt.Sprintf("gemm%dx%d%s", R, V, k.Suf)
	sig := "func(c *float32, ldc int, a *float32, sp, st int, b *float32, ldb int, n int, acc bool)"
	doc := fmt.Sprintf("%s is the %d×%d-vector micro-kernel of gemm on %s.", name, R, V, k.Suf)
	if tanhGrad {
		name = fmt.Sprintf("gemmTanhGrad%dx%d%s", R, V, k.Suf)
		sig = "func(c *float32, ldc int, a *float32, sp, st int, b *float32, ldb int, n int, acc bool, h *float32)"
		doc = fmt.Sprintf("%s is gemm%dx%d%s with C multiplied by 1 − h² before it is stored.", name, R, V, k.Suf)
	}
	TEXT(name, NOSPLIT, sig)
	Pragma("noescape")
	Doc(doc)
	vb := k.Lanes * size

	c0 := Load(Param("c"), GP64())
	ldc := Load(Param("ldc"), GP64())
	a0 := Load(Param("a"), GP64())
	sp := Load(Param("sp"), GP64())
	st := Load(Param("st"), GP64())
	b := Load(Param("b"), GP64())
	ldb := Load(Param("ldb"), GP64())
	n := Load(Param("n"), GP64())

	// rowAddr returns the address of row r from base pointers p0 (row 0)
	// and p3 (row 3), stride s and double stride s2.
	rowAddr := func(p0, p3, s, s2 Register, r, off int) Mem {
		base := p0
		if r >= 3 {
			base, r = p3, r-3
		}
		switch r {
		case 0:
			return Mem{Base: base, Disp: off}
		case 1:
			return Mem{Base: base, Index: s, Scale: 1, Disp: off}
		default:
			return Mem{Base: base, Index: s2, Scale: 1, Disp: off}
		}
	}
	var c3, ldc2, a3, sp2 Register
	if R > 2 {
		ldc2, sp2 = GP64(), GP64()
		LEAQ(Mem{Base: ldc, Index: ldc, Scale: 1}, ldc2)
		LEAQ(Mem{Base: sp, Index: sp, Scale: 1}, sp2)
	}
	if R > 3 {
		c3, a3 = GP64(), GP64()
		LEAQ(Mem{Base: c0, Index: ldc2, Scale: 1}, c3)
		ADDQ(ldc, c3)
		LEAQ(Mem{Base: a0, Index: sp2, Scale: 1}, a3)
		ADDQ(sp, a3)
	}

	s := make([][]VecVirtual, R)
	for r := range s {
		s[r] = make([]VecVirtual, V)
		for v := range s[r] {
			s[r][v] = k.Vec()
			VXORPS(s[r][v], s[r][v], s[r][v])
		}
	}
	accFlag := Load(Param("acc"), GP8())
	TESTB(accFlag, accFlag)
	JZ(LabelRef(name + "_loop"))
	for r := range s {
		for v := range s[r] {
			VMOVUPS(rowAddr(c0, c3, ldc, ldc2, r, v*vb), s[r][v])
		}
	}

	Label(name + "_loop")
	w := make([]VecVirtual, V)
	for v := range w {
		w[v] = k.Vec()
		VMOVUPS(Mem{Base: b, Disp: v * vb}, w[v])
	}
	for r := 0; r < R; r++ {
		x := k.Vec()
		VBROADCASTSS(rowAddr(a0, a3, sp, sp2, r, 0), x)
		for v := 0; v < V; v++ {
			VFMADD231PS(w[v], x, s[r][v])
		}
	}
	ADDQ(st, a0)
	if R > 3 {
		ADDQ(st, a3)
	}
	ADDQ(ldb, b)
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))

	if tanhGrad {
		// h has C's layout: its rows from h0 and h3 with C's strides.
		h0 := Load(Param("h"), GP64())
		var h3 Register
		if R > 3 {
			h3 = GP64()
			LEAQ(Mem{Base: h0, Index: ldc2, Scale: 1}, h3)
			ADDQ(ldc, h3)
		}
		for r := range s {
			for v := range s[r] {
				hv, t := k.Vec(), k.Vec()
				VMOVUPS(rowAddr(h0, h3, ldc, ldc2, r, v*vb), hv)
				VMOVUPS(entry(oneK, 0), t)
				VFNMADD231PS(hv, hv, t) // t = 1 − h·h
				VMULPS(s[r][v], t, s[r][v])
			}
		}
	}
	for r := range s {
		for v := range s[r] {
			VMOVUPS(s[r][v], rowAddr(c0, c3, ldc, ldc2, r, v*vb))
		}
	}
	VZEROUPPER()
	RET()
}

// tanhRows emits tanhRows<ISA>: h[r·ld + j] = tanh32(h[r·ld + j] + bias[j])
// for r < rows and j < width, width a multiple of the lanes and ld in
// bytes. tanh32 is the [13/6] rational function of nn/kernel_tanh.go on the
// clamped input; the division is a reciprocal estimate refined by one
// Newton step, r·(2 − q·r). Each vector is a long chain of dependent
// operations, so two run interleaved while the row has two left.
func tanhRows(k isa) {
	name := "tanhRows" + k.Suf
	TEXT(name, NOSPLIT, "func(h *float32, ld int, bias *float32, rows, width int)")
	Pragma("noescape")
	Doc(name + " is the tanh of biasAct on " + k.Suf + ".")
	vb := k.Lanes * size
	h := Load(Param("h"), GP64())
	ld := Load(Param("ld"), GP64())
	bias := Load(Param("bias"), GP64())
	rows := Load(Param("rows"), GP64())
	width := Load(Param("width"), GP64())
	TESTQ(rows, rows)
	JZ(LabelRef(name + "_done"))
	SHLQ(U8(2), width) // bytes

	hi, lo, two := k.Vec(), k.Vec(), k.Vec()
	VMOVUPS(entry(tanhK, 0), hi)
	VMOVUPS(entry(tanhK, 1), lo)
	VMOVUPS(entry(tanhK, 2), two)
	// coef is coefficient c (3…13) of the table: a register with AVX-512,
	// whose 32 hold them all beside two vectors' work (memory operands
	// cost load slots the loop is short of), else the table in memory.
	coef := func(c int) Op { return entry(tanhK, c) }
	if k.Lanes == 16 {
		var cr [14]VecVirtual
		for c := 3; c <= 13; c++ {
			cr[c] = k.Vec()
			VMOVUPS(entry(tanhK, c), cr[c])
		}
		coef = func(c int) Op { return cr[c] }
	}

	// block computes len(off) vectors at byte offsets off of the row
	// (row) and of bias, register for register interleaved.
	block := func(row, j Register, u int) {
		x, x2, p, q, r := make([]VecVirtual, u), make([]VecVirtual, u), make([]VecVirtual, u), make([]VecVirtual, u), make([]VecVirtual, u)
		for i := 0; i < u; i++ {
			x[i], x2[i], p[i], q[i], r[i] = k.Vec(), k.Vec(), k.Vec(), k.Vec(), k.Vec()
			VMOVUPS(Mem{Base: row, Index: j, Scale: 1, Disp: i * vb}, x[i])
			VADDPS(Mem{Base: bias, Index: j, Scale: 1, Disp: i * vb}, x[i], x[i])
			// min and max with x as the second source: a NaN passes through.
			VMINPS(x[i], hi, x[i])
			VMAXPS(x[i], lo, x[i])
			VMULPS(x[i], x[i], x2[i])
			if k.Lanes == 16 {
				VMOVAPS(coef(3), p[i])
				VMOVAPS(coef(10), q[i])
			} else {
				VMOVUPS(coef(3), p[i])
				VMOVUPS(coef(10), q[i])
			}
		}
		for c := 4; c <= 9; c++ {
			for i := 0; i < u; i++ {
				VFMADD213PS(coef(c), x2[i], p[i]) // p = p·x² + P
			}
		}
		for c := 11; c <= 13; c++ {
			for i := 0; i < u; i++ {
				VFMADD213PS(coef(c), x2[i], q[i])
			}
		}
		for i := 0; i < u; i++ {
			if k.Lanes == 16 {
				VRCP14PS(q[i], r[i])
			} else {
				VRCPPS(q[i], r[i])
			}
			VFNMADD213PS(two, r[i], q[i]) // q = 2 − q·r
			VMULPS(q[i], r[i], r[i])
			VMULPS(p[i], x[i], x[i])
			VMULPS(r[i], x[i], x[i])
			VMOVUPS(x[i], Mem{Base: row, Index: j, Scale: 1, Disp: i * vb})
		}
	}

	Label(name + "_row")
	j := GP64()
	XORQ(j, j)
	Label(name + "_pair")
	t := GP64()
	LEAQ(Mem{Base: j, Disp: 2 * vb}, t)
	CMPQ(t, width)
	JA(LabelRef(name + "_one"))
	block(h, j, 2)
	ADDQ(U32(2*vb), j)
	JMP(LabelRef(name + "_pair"))
	Label(name + "_one")
	CMPQ(j, width)
	JAE(LabelRef(name + "_next"))
	block(h, j, 1)
	Label(name + "_next")
	ADDQ(ld, h)
	DECQ(rows)
	JNZ(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// biasRows emits biasRowsAVX2: h[r·ld + j] = f(h[r·ld + j] + bias[j]) for
// r < rows, j < width (a multiple of 8, ld in bytes), f the identity
// when relu is false and max(·, 0) when it is true.
func biasRows() {
	const name = "biasRowsAVX2"
	TEXT(name, NOSPLIT, "func(h *float32, ld int, bias *float32, rows, width int, relu bool)")
	Pragma("noescape")
	Doc(name + " is biasAct for the identity and ReLU.")
	h := Load(Param("h"), GP64())
	ld := Load(Param("ld"), GP64())
	bias := Load(Param("bias"), GP64())
	rows := Load(Param("rows"), GP64())
	width := Load(Param("width"), GP64())
	relu := Load(Param("relu"), GP8())
	TESTQ(rows, rows)
	JZ(LabelRef(name + "_done"))
	SHLQ(U8(2), width)
	zero := YMM()
	VXORPS(zero, zero, zero)
	Label(name + "_row")
	j := GP64()
	XORQ(j, j)
	Label(name + "_col")
	x := YMM()
	VMOVUPS(Mem{Base: h, Index: j, Scale: 1}, x)
	VADDPS(Mem{Base: bias, Index: j, Scale: 1}, x, x)
	TESTB(relu, relu)
	JZ(LabelRef(name + "_store"))
	VMAXPS(zero, x, x)
	Label(name + "_store")
	VMOVUPS(x, Mem{Base: h, Index: j, Scale: 1})
	ADDQ(U8(32), j)
	CMPQ(j, width)
	JB(LabelRef(name + "_col"))
	ADDQ(ld, h)
	DECQ(rows)
	JNZ(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// actGrad emits actGradTanhAVX2, d[i] ·= 1 − h[i]², and actGradReLUAVX2,
// d[i] = 0 unless h[i] > 0, for i < n (a multiple of 8).
func actGrad() {
	for _, relu := range []bool{false, true} {
		name := "actGradTanhAVX2"
		if relu {
			name = "actGradReLUAVX2"
		}
		TEXT(name, NOSPLIT, "func(d, h *float32, n int)")
		Pragma("noescape")
		Doc(name + " is actGrad on AVX2.")
		d := Load(Param("d"), GP64())
		h := Load(Param("h"), GP64())
		n := Load(Param("n"), GP64())
		SHRQ(U8(3), n)
		JZ(LabelRef(name + "_done"))
		c := YMM()
		if relu {
			VXORPS(c, c, c)
		} else {
			VMOVUPS(entry(oneK, 0), c)
		}
		Label(name + "_loop")
		hv, dv := YMM(), YMM()
		VMOVUPS(Mem{Base: h}, hv)
		if relu {
			VCMPPS(U8(0x1e), c, hv, hv) // h > 0 (ordered, quiet)
			VANDPS(Mem{Base: d}, hv, dv)
		} else {
			t := YMM()
			VMOVAPS(c, t)
			VFNMADD231PS(hv, hv, t) // t = 1 − h·h
			VMULPS(Mem{Base: d}, t, dv)
		}
		VMOVUPS(dv, Mem{Base: d})
		ADDQ(U8(32), d)
		ADDQ(U8(32), h)
		DECQ(n)
		JNZ(LabelRef(name + "_loop"))
		Label(name + "_done")
		VZEROUPPER()
		RET()
	}
}

// actGradTanh512 emits actGradTanhAVX512, actGradTanhAVX2 on 16 lanes:
// d[i] ·= 1 − h[i]² for i < n (a multiple of 16), the same operations lane
// for lane.
func actGradTanh512() {
	const name = "actGradTanhAVX512"
	TEXT(name, NOSPLIT, "func(d, h *float32, n int)")
	Pragma("noescape")
	Doc(name + " is actGrad for tanh on AVX512.")
	d := Load(Param("d"), GP64())
	h := Load(Param("h"), GP64())
	n := Load(Param("n"), GP64())
	SHRQ(U8(4), n)
	JZ(LabelRef(name + "_done"))
	c := ZMM()
	VMOVUPS(entry(oneK, 0), c)
	Label(name + "_loop")
	hv, dv, t := ZMM(), ZMM(), ZMM()
	VMOVUPS(Mem{Base: h}, hv)
	VMOVAPS(c, t)
	VFNMADD231PS(hv, hv, t) // t = 1 − h·h
	VMULPS(Mem{Base: d}, t, dv)
	VMOVUPS(dv, Mem{Base: d})
	ADDQ(U8(64), d)
	ADDQ(U8(64), h)
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// colSum emits colSum<ISA>: dst[j] += Σ_{r<rows} src[r·ld + j] for j <
// width (a multiple of the lanes, ld in bytes), four vectors of columns at
// a time.
func colSum(k isa) {
	name := "colSum" + k.Suf
	vb := k.Lanes * size
	TEXT(name, NOSPLIT, "func(dst, src *float32, ld, rows, width int)")
	Pragma("noescape")
	Doc(name + " is colSum on " + k.Suf + ".")
	dst := Load(Param("dst"), GP64())
	src := Load(Param("src"), GP64())
	ld := Load(Param("ld"), GP64())
	rows := Load(Param("rows"), GP64())
	width := Load(Param("width"), GP64())
	TESTQ(rows, rows)
	JZ(LabelRef(name + "_done"))
	SHLQ(U8(2), width)
	j := GP64()
	XORQ(j, j)
	for _, u := range []int{4, 1} {
		lbl := fmt.Sprintf("%s_cols%d", name, u)
		end := fmt.Sprintf("%s_end%d", name, u)
		Label(lbl)
		t := GP64()
		LEAQ(Mem{Base: j, Disp: vb * u}, t)
		CMPQ(t, width)
		JA(LabelRef(end))
		s := make([]VecVirtual, u)
		for i := range s {
			s[i] = k.Vec()
			VMOVUPS(Mem{Base: dst, Index: j, Scale: 1, Disp: vb * i}, s[i])
		}
		p, r := GP64(), GP64()
		LEAQ(Mem{Base: src, Index: j, Scale: 1}, p)
		MOVQ(rows, r)
		Label(lbl + "_row")
		for i := range s {
			VADDPS(Mem{Base: p, Disp: vb * i}, s[i], s[i])
		}
		ADDQ(ld, p)
		DECQ(r)
		JNZ(LabelRef(lbl + "_row"))
		for i := range s {
			VMOVUPS(s[i], Mem{Base: dst, Index: j, Scale: 1, Disp: vb * i})
		}
		ADDQ(U32(vb*u), j)
		JMP(LabelRef(lbl))
		Label(end)
	}
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// adam emits adamAVX2, one Adam step on the first n elements (a multiple of
// 8) of the flat slices, with the coefficients k = {β1, 1−β1, β2, 1−β2,
// step, 1/bc2, ε}:
//
//	m = β1·m + (1−β1)·g;  v = β2·v + (1−β2)·g²;  p −= step·m / (√v·(1/bc2) + ε)
func adam() {
	const name = "adamAVX2"
	TEXT(name, NOSPLIT, "func(p, grad, m, v *float32, n int, k *[7]float32)")
	Pragma("noescape")
	Doc(name + " is adam on AVX2.")
	p := Load(Param("p"), GP64())
	g := Load(Param("grad"), GP64())
	m := Load(Param("m"), GP64())
	v := Load(Param("v"), GP64())
	n := Load(Param("n"), GP64())
	kp := Load(Param("k"), GP64())
	SHRQ(U8(3), n)
	JZ(LabelRef(name + "_done"))
	c := make([]VecVirtual, 7)
	for i := range c {
		c[i] = YMM()
		VBROADCASTSS(Mem{Base: kp, Disp: 4 * i}, c[i])
	}
	b1, nb1, b2, nb2, step, ibc2, eps := c[0], c[1], c[2], c[3], c[4], c[5], c[6]
	i := GP64()
	XORQ(i, i)
	Label(name + "_loop")
	gv, mv, vv, t := YMM(), YMM(), YMM(), YMM()
	at := func(base Register) Mem { return Mem{Base: base, Index: i, Scale: 1} }
	VMOVUPS(at(g), gv)
	VMULPS(gv, nb1, mv)
	VFMADD231PS(at(m), b1, mv) // m·β1 + g·(1−β1)
	VMULPS(gv, gv, t)
	VMULPS(nb2, t, vv)
	VFMADD231PS(at(v), b2, vv) // v·β2 + g²·(1−β2)
	VMOVUPS(mv, at(m))
	VMOVUPS(vv, at(v))
	VSQRTPS(vv, t)
	VFMADD213PS(eps, ibc2, t) // √v/bc2 + ε
	VMULPS(step, mv, mv)
	VDIVPS(t, mv, mv)
	VMOVUPS(at(p), t)
	VSUBPS(mv, t, t)
	VMOVUPS(t, at(p))
	ADDQ(U8(32), i)
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// The loss kernel's constants, entries of lossK.
const (
	lkOne = iota
	lkTwo
	lkHalf
	lkM20
	lkP20
	lkSign
	lkExpLo
	lkExpHi
	lkLog2e
	lkMagic
	lkLn2Hi
	lkLn2Lo
	lkExpP     // 6 coefficients
	lkSqrtHalf = lkExpP + 6
	lkMant     = lkSqrtHalf + 1
	lkLogP     = lkMant + 1 // 9 coefficients
	lkLogQ1    = lkLogP + 9
	lkLogHalf  = lkLogQ1 + 1
	lkLn2      = lkLogHalf + 1
	lkCount    = lkLn2 + 1
)

var lossK Mem

func lossConsts() {
	f := func(v float32) uint32 { return math.Float32bits(v) }
	vals := make([]uint32, lkCount)
	vals[lkOne], vals[lkTwo], vals[lkHalf] = f(1), f(2), f(0.5)
	vals[lkM20], vals[lkP20], vals[lkSign] = f(-20), f(20), 0x80000000
	vals[lkExpLo], vals[lkExpHi] = f(-87.33654), f(88.3762626647949)
	vals[lkLog2e], vals[lkMagic] = f(math.Log2E), f(12582912)
	vals[lkLn2Hi], vals[lkLn2Lo] = f(-0.693359375), f(2.12194440e-4)
	for i, c := range []float32{1.9875691500e-4, 1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1} {
		vals[lkExpP+i] = f(c)
	}
	vals[lkSqrtHalf], vals[lkMant] = 0x3f3504f3, 0x007fffff
	for i, c := range []float32{7.0376836292e-2, -1.1514610310e-1, 1.1676998740e-1, -1.2420140846e-1, 1.4249322787e-1, -1.6668057665e-1, 2.0000714765e-1, -2.4999993993e-1, 3.3333331174e-1} {
		vals[lkLogP+i] = f(c)
	}
	vals[lkLogQ1], vals[lkLogHalf], vals[lkLn2] = f(-2.12194440e-4), f(-0.5), f(0.693359375)
	lossK = GLOBL("lossk", RODATA|NOPTR)
	for i, v := range vals {
		for l := 0; l < 8; l++ {
			DATA(32*i+4*l, U32(v))
		}
	}
	lossVals = vals
}

// lossVals are lossk's values, for lossk16 (lossConsts16).
var lossVals []uint32

// lossK16 is lossk with every value repeated 16 times, ZMM operands.
var lossK16 Mem

func lossConsts16() {
	lossK16 = GLOBL("lossk16", RODATA|NOPTR)
	for i, v := range lossVals {
		for l := 0; l < 16; l++ {
			DATA(64*i+4*l, U32(v))
		}
	}
}

// lc16 is loss constant i as a ZMM operand.
func lc16(i int) Mem { return lossK16.Offset(64 * i) }

// lc is loss constant i as a YMM operand.
func lc(i int) Mem { return lossK.Offset(32 * i) }

// vset is the vector width the loss runs at: AVX2's YMM with the 32-byte
// constants lc, or AVX-512's ZMM with the 64-byte lc16. The loss's compares
// write vector masks (all-ones lanes) on AVX2 and opmask registers on
// AVX-512; the mask operations below are the instructions for each.
type vset struct {
	lanes int
	vec   func() VecVirtual
	c     func(i int) Mem
	and   func(a, b, dst Op) // bitwise and: VPAND or VPANDD
	xor   func(a, b, dst Op) // bitwise xor: VXORPS or VPXORD

	kmask     bool                    // masks are opmask registers (K), not vectors
	mask      func() Register         // a new mask register
	mand, mor func(a, b, dst Op)      // and, or of masks
	movmsk    func(m Op, r GPVirtual) // a bit a lane of m into r
	masked    func(m, x, dst Op)      // dst = x in m's lanes, 0 in the others
	blend     func(m, x, dst Op)      // dst = x in m's lanes, dst in the others
}

var (
	v8 = vset{
		lanes:  8,
		vec:    func() VecVirtual { return YMM() },
		c:      lc,
		and:    func(a, b, d Op) { VPAND(a, b, d) },
		xor:    func(a, b, d Op) { VXORPS(a, b, d) },
		mask:   func() Register { return YMM() },
		mand:   func(a, b, d Op) { VANDPS(a, b, d) },
		mor:    func(a, b, d Op) { VORPS(a, b, d) },
		movmsk: func(m Op, r GPVirtual) { VMOVMSKPS(m, r.As32()) },
		masked: func(m, x, d Op) {
			// VANDPS reads memory from its first operand only; with
			// two registers the mask goes first (the same bits).
			if _, mem := x.(Mem); mem {
				VANDPS(x, m, d)
			} else {
				VANDPS(m, x, d)
			}
		},
		blend: func(m, x, d Op) { VBLENDVPS(m, x, d, d) },
	}
	v16 = vset{
		lanes:  16,
		vec:    func() VecVirtual { return ZMM() },
		c:      lc16,
		and:    func(a, b, d Op) { VPANDD(a, b, d) },
		xor:    func(a, b, d Op) { VPXORD(a, b, d) },
		kmask:  true,
		mask:   func() Register { return K() },
		mand:   func(a, b, d Op) { KANDW(a, b, d) },
		mor:    func(a, b, d Op) { KORW(a, b, d) },
		movmsk: func(m Op, r GPVirtual) { KMOVW(m, r.As32()) },
		masked: func(m, x, d Op) { VMOVUPS_Z(x, m, d) },
		blend:  func(m, x, d Op) { VMOVUPS(x, m, d) },
	}
)

// inReg is x in a vector register: x itself, or loaded from memory into a
// new one.
func (vs vset) inReg(x Op) VecVirtual {
	if r, ok := x.(VecVirtual); ok {
		return r
	}
	r := vs.vec()
	VMOVUPS(x, r)
	return r
}

// vmov copies x to dst: VMOVUPS from memory, VMOVAPS from a register.
func vmov(x Op, dst VecVirtual) {
	if _, mem := x.(Mem); mem {
		VMOVUPS(x, dst)
	} else {
		VMOVAPS(x, dst)
	}
}

// expAVX2 is expV on YMM.
func expAVX2(x, p VecVirtual) { expV(v8, x, p) }

// expV sets p to e^x for x ≤ 88, flushed to 2^−126·e^… below −87 (Cephes
// expf: 2^n·P(r) with r = x − n·ln 2, |r| ≤ ln2/2; within 2 ulp). x is
// overwritten. Lane for lane the same operations at either width.
func expV(vs vset, x, p VecVirtual) {
	lc := vs.c
	t, n := vs.vec(), vs.vec()
	VMAXPS(lc(lkExpLo), x, x)
	VMINPS(lc(lkExpHi), x, x)
	// Adding 1.5·2²³ rounds x·log2(e) to the integer n in the low bits.
	VMOVUPS(lc(lkLog2e), t)
	VFMADD213PS(lc(lkMagic), x, t)
	VSUBPS(lc(lkMagic), t, n)
	VFMADD231PS(lc(lkLn2Hi), n, x)
	VFMADD231PS(lc(lkLn2Lo), n, x) // x = r
	VMOVUPS(lc(lkExpP), p)
	for i := 1; i < 6; i++ {
		VFMADD213PS(lc(lkExpP+i), x, p)
	}
	VMULPS(x, x, n)
	VFMADD213PS(x, n, p) // p·r² + r
	VADDPS(lc(lkOne), p, p)
	// t's low bits hold n; shifted into the exponent field they scale p by 2ⁿ.
	VPSLLD(U8(23), t, t)
	VPADDD(t, p, p)
}

// logAVX2 is logV on YMM.
func logAVX2(x, y VecVirtual) { logV(v8, x, y) }

// logV sets y to the natural logarithm of positive normal x (Cephes logf:
// x = m·2ᵉ with m ∈ [√½, √2), log m by a degree-9 polynomial; within 2 ulp).
// x is overwritten.
func logV(vs vset, x, y VecVirtual) {
	lc := vs.c
	e, z := vs.vec(), vs.vec()
	// x − bits(√½) moves m's range to [√½, √2): its exponent field is e,
	// its mantissa plus bits(√½) is m.
	VPSUBD(lc(lkSqrtHalf), x, x)
	VPSRAD(U8(23), x, e)
	VCVTDQ2PS(e, e)
	vs.and(lc(lkMant), x, x)
	VPADDD(lc(lkSqrtHalf), x, x)
	VSUBPS(lc(lkOne), x, x) // f = m − 1
	VMULPS(x, x, z)
	VMOVUPS(lc(lkLogP), y)
	for i := 1; i < 9; i++ {
		VFMADD213PS(lc(lkLogP+i), x, y)
	}
	VMULPS(x, y, y)
	VMULPS(z, y, y)
	VFMADD231PS(lc(lkLogQ1), e, y)
	VFMADD231PS(lc(lkLogHalf), z, y)
	VADDPS(y, x, x)
	VFMADD231PS(lc(lkLn2), e, x)
	VMOVAPS(x, y)
}

// The columns of nn's lossCols, tileRows float32 each, then the scratch
// vectors the kernel keeps a row group's log-probabilities, probabilities
// and log-ratios to the reference in.
const (
	colZ0 = iota
	colZ1
	colZ2
	colQ0
	colQ1
	colQ2
	colA
	colAdv
	colBeh
	colValid
	colG0
	colG1
	colG2
	numCols

	tileRows = 64
	scratchL = 0 // then P at 3, D at 6
)

// Per-call constants, entries of the k argument of lossVecAVX2.
const (
	kcLo = iota
	kcHi
	kcBeta
	kcEntropy
	kcScale
	kcCount
)

// lossVec emits lossVecAVX2, the vector phase of nn's float32 loss on the
// first m rows of the columns at c (see nn/kernel_loss.go for the formulas,
// lossVecAVX2's Go doc for the layout). It writes the gradient columns,
// adds the valid rows' policy loss, KL and entropy lane by lane into out,
// and returns the clip counts. Eight rows at a time (lossGroup); values
// that do not fit the 16 registers go through the scratch vectors after
// the columns.
func lossVec() {
	lossConsts()
	const name = "lossVecAVX2"
	TEXT(name, NOSPLIT, fmt.Sprintf("func(c *float32, m int, k *[%d][8]float32, out *[3][8]float32) (clipLow, clipHigh int)", kcCount))
	Pragma("noescape")
	Doc(name + " is the vector phase of the float32 loss on AVX2.")
	cp := Load(Param("c"), GP64())
	m := Load(Param("m"), GP64())
	kp := Load(Param("k"), GP64())
	lowN, highN := GP64(), GP64()
	XORQ(lowN, lowN)
	XORQ(highN, highN)
	polS, klS, entS := YMM(), YMM(), YMM()
	VXORPS(polS, polS, polS)
	VXORPS(klS, klS, klS)
	VXORPS(entS, entS, entS)
	scratch := GP64()
	LEAQ(Mem{Base: cp, Disp: numCols * tileRows * 4}, scratch)
	col := func(i int) Mem { return Mem{Base: cp, Disp: i * tileRows * 4} }
	sv := func(i int) Mem { return Mem{Base: scratch, Disp: 32 * i} }
	TESTQ(m, m)
	JZ(LabelRef(name + "_done"))

	Label(name + "_loop")
	lossGroup(v8, lossIO{
		kc:  func(i int) Mem { return Mem{Base: kp, Disp: 32 * i} },
		col: func(c int) Op { return col(c) },
		keep: func(v VecVirtual, slot int) Op {
			VMOVUPS(v, sv(slot))
			return sv(slot)
		},
		validMask: func(zero VecVirtual) Op {
			vm := v8.inReg(col(colValid))
			VCMPPS(U8(cmpGT), zero, vm, vm)
			return vm
		},
		grad: func(i int, g VecVirtual) { VMOVUPS(g, col(colG0+i)) },
		polS: polS, klS: klS, entS: entS,
		lowN: lowN, highN: highN,
	})
	ADDQ(U8(32), cp)
	SUBQ(U8(8), m)
	JA(LabelRef(name + "_loop"))

	Label(name + "_done")
	op := Load(Param("out"), GP64())
	VMOVUPS(polS, Mem{Base: op})
	VMOVUPS(klS, Mem{Base: op, Disp: 32})
	VMOVUPS(entS, Mem{Base: op, Disp: 64})
	Store(lowN, ReturnIndex(0))
	Store(highN, ReturnIndex(1))
	VZEROUPPER()
	RET()
}

// VCMPPS predicates: ordered, quiet.
const cmpLT, cmpLE, cmpGE, cmpGT, cmpEQ = 0x11, 0x12, 0x1d, 0x1e, 0x00

// lossIO is what lossVecAVX2 and lossRowsAVX512 differ in around
// lossGroup's arithmetic: where a group's rows come from, where the values
// the gradient needs wait, and where the gradient and sums go.
type lossIO struct {
	kc func(i int) Mem // per-call constant i (kcLo…)
	// col is column c of the group's rows (colZ0…colValid) as an operand:
	// lossCols in memory on AVX2; on AVX-512 a register loaded before
	// lossGroup, or for the logits and the reference a gather.
	col func(c int) Op
	// keep holds v, a log-probability, probability or log-ratio (scratch
	// slot scratchL+i, 3+i or 6+i), until the gradient: AVX2 spills it to
	// the scratch vectors, AVX-512 keeps the register.
	keep func(v VecVirtual, slot int) Op
	// validMask is the mask of the rows the clip counts count.
	validMask func(zero VecVirtual) Op
	// grad stores column i of the gradient.
	grad            func(i int, g VecVirtual)
	polS, klS, entS VecVirtual // the 8-lane sums of out
	lowN, highN     GPVirtual  // the clip counts
}

// lossGroup emits the loss on one group of rows (8 on AVX2, 16 on
// AVX-512): written once for both kernels so that they stay lane for lane
// the same operations (nn's tests hold lossAVX512 to lossAVX2's bits).
// avo's register allocator breaks ties by the order registers are created
// in, so moving a vs.vec() changes the registers chosen (not the results).
func lossGroup(vs vset, io lossIO) {
	lc, kc, col := vs.c, io.kc, io.col
	// Softmax and log-softmax of the three logits.
	y := []VecVirtual{vs.inReg(col(colZ0)), vs.inReg(col(colZ1)), vs.inReg(col(colZ2))}
	mx := vs.vec()
	VMAXPS(y[1], y[0], mx)
	VMAXPS(y[2], mx, mx)
	for i := range y {
		VSUBPS(mx, y[i], y[i])
	}
	e := []VecVirtual{vs.vec(), vs.vec(), vs.vec()}
	for i := range e {
		t := vs.vec()
		VMOVAPS(y[i], t)
		expV(vs, t, e[i])
	}
	sum := vs.vec()
	VADDPS(e[1], e[0], sum)
	VADDPS(e[2], sum, sum)
	inv := vs.vec()
	VMOVUPS(lc(lkOne), inv)
	VDIVPS(sum, inv, inv)
	for i := range e {
		VMULPS(inv, e[i], e[i]) // p
	}
	ls := vs.vec()
	logV(vs, sum, ls)
	var lk, pk, dk [3]Op // l, p and d kept for the gradient
	for i := range y {
		VSUBPS(ls, y[i], y[i]) // l = z − logsumexp
		lk[i] = io.keep(y[i], scratchL+i)
		pk[i] = io.keep(e[i], 3+i)
	}
	l, p := y, e
	// KL to the reference and entropy.
	klv, ent := vs.vec(), vs.vec()
	d := []VecVirtual{vs.vec(), vs.vec(), vs.vec()}
	for i := range l {
		VSUBPS(col(colQ0+i), l[i], d[i])
		dk[i] = io.keep(d[i], 6+i)
		if i == 0 {
			VMULPS(d[i], p[i], klv)
			VMULPS(l[i], p[i], ent)
		} else {
			VFMADD231PS(d[i], p[i], klv)
			VFMADD231PS(l[i], p[i], ent)
		}
	}
	vs.xor(lc(lkSign), ent, ent)

	// oneHot sets o to the one-hot of the action for action i, by
	// arithmetic, exact for a ∈ {0, 1, 2}: (1−a)(2−a)/2, a(2−a), a(a−1)/2.
	oneHot := func(i int, o VecVirtual) {
		a, t := vs.inReg(col(colA)), vs.vec()
		switch i {
		case 0:
			VMOVUPS(lc(lkOne), o)
			VSUBPS(a, o, o)
			VMOVUPS(lc(lkTwo), t)
			VSUBPS(a, t, t)
			VMULPS(t, o, o)
			VMULPS(lc(lkHalf), o, o)
		case 1:
			VMOVUPS(lc(lkTwo), o)
			VSUBPS(a, o, o)
			VMULPS(a, o, o)
		case 2:
			VSUBPS(lc(lkOne), a, o)
			VMULPS(a, o, o)
			VMULPS(lc(lkHalf), o, o)
		}
	}
	la := vs.vec()
	for i := range l {
		o := vs.vec()
		oneHot(i, o)
		if i == 0 {
			VMULPS(o, l[i], la)
		} else {
			VFMADD231PS(o, l[i], la)
		}
	}
	// The clipped ratio term.
	raw := la
	VSUBPS(col(colBeh), la, raw)
	rho, rr := vs.vec(), vs.vec()
	VMAXPS(lc(lkM20), raw, rr)
	VMINPS(lc(lkP20), rr, rr)
	expV(vs, rr, rho)
	u, v := vs.vec(), vs.vec()
	VMULPS(col(colAdv), rho, u)
	VMAXPS(kc(kcLo), rho, v)
	VMINPS(kc(kcHi), v, v)
	VMULPS(col(colAdv), v, v)
	in, t := vs.mask(), vs.mask()
	VCMPPS(U8(cmpGE), kc(kcLo), rho, in)
	VCMPPS(U8(cmpLE), kc(kcHi), rho, t)
	vs.mand(t, in, in) // ρ within the clip range
	// ∂L_clip/∂ρ = −A·f: f = 1 when min takes ρA or the clamp passes, ½ on
	// a tie outside the clip range, 0 when the clipped term wins.
	VCMPPS(U8(cmpLT), v, u, t)
	vs.mor(t, in, in)
	f := vs.vec()
	tie := Register(t)
	if !vs.kmask {
		tie = f // a vector mask can be f itself
	}
	VCMPPS(U8(cmpEQ), v, u, tie)
	vs.masked(tie, lc(lkHalf), f)
	vs.blend(in, lc(lkOne), f)
	VMINPS(v, u, u)
	VFNMADD231PS(col(colValid), u, io.polS) // polS −= min(u, v)·valid
	VFMADD231PS(col(colValid), klv, io.klS)
	VFMADD231PS(col(colValid), ent, io.entS)
	if vs.lanes == 16 {
		// Rows 8–15 into the low half, added after rows 0–7 as
		// lossVecAVX2's next group of 8 is.
		valid := col(colValid)
		vh, uh, kh, eh := ZMM(), ZMM(), ZMM(), ZMM()
		VSHUFF32X4(U8(0x4e), valid, valid, vh)
		VSHUFF32X4(U8(0x4e), u, u, uh)
		VSHUFF32X4(U8(0x4e), klv, klv, kh)
		VSHUFF32X4(U8(0x4e), ent, ent, eh)
		VFNMADD231PS(vh, uh, io.polS)
		VFMADD231PS(vh, kh, io.klS)
		VFMADD231PS(vh, eh, io.entS)
	}
	// dLp = −A·f·ρ where the raw log-ratio is within ±20, else 0.
	dlp := f
	VMULPS(rho, dlp, dlp)
	VMULPS(col(colAdv), dlp, dlp)
	vs.xor(lc(lkSign), dlp, dlp)
	VCMPPS(U8(cmpGE), lc(lkM20), raw, t)
	vs.masked(t, dlp, dlp)
	VCMPPS(U8(cmpLE), lc(lkP20), raw, t)
	vs.masked(t, dlp, dlp)
	// Clip counts over the valid rows.
	zero := vs.vec()
	vs.xor(zero, zero, zero)
	adv := vs.inReg(col(colAdv))
	cnt := GP64()
	VCMPPS(U8(cmpLT), kc(kcLo), rho, t)
	VCMPPS(U8(cmpLT), zero, adv, in)
	vs.mand(in, t, t)
	vm := io.validMask(zero)
	vs.mand(vm, t, t)
	vs.movmsk(t, cnt)
	POPCNTL(cnt.As32(), cnt.As32())
	ADDQ(cnt, io.lowN)
	VCMPPS(U8(cmpGT), kc(kcHi), rho, t)
	VCMPPS(U8(cmpGT), zero, adv, in)
	vs.mand(in, t, t)
	vs.mand(vm, t, t)
	vs.movmsk(t, cnt)
	POPCNTL(cnt.As32(), cnt.As32())
	ADDQ(cnt, io.highN)
	// Gradient: g_i = (β(d_i − KL) + c_H(l_i + H) − dLp)·p_i + dLp·onehot_i,
	// scaled by 1/B.
	for i := 0; i < 3; i++ {
		g, s, o := vs.vec(), vs.vec(), vs.vec()
		vmov(dk[i], g)
		VSUBPS(klv, g, g)
		VMULPS(kc(kcBeta), g, g)
		vmov(lk[i], s)
		VADDPS(ent, s, s)
		VFMADD231PS(kc(kcEntropy), s, g)
		VSUBPS(dlp, g, g)
		VMULPS(pk[i], g, g)
		oneHot(i, o)
		VFMADD231PS(o, dlp, g)
		VMULPS(kc(kcScale), g, g)
		io.grad(i, g)
	}
}

// allFinite emits allFiniteAVX2, which reports whether the first n elements
// (a multiple of 32) of x are all finite: x·0 is 0 for a finite x and NaN
// for NaN and ±Inf, and a NaN stays in the sum.
func allFinite() {
	const name = "allFiniteAVX2"
	TEXT(name, NOSPLIT, "func(x *float32, n int) bool")
	Pragma("noescape")
	Doc(name + " is the vector part of FirstNonFinite for float32.")
	x := Load(Param("x"), GP64())
	n := Load(Param("n"), GP64())
	zero := YMM()
	VXORPS(zero, zero, zero)
	acc := []VecVirtual{YMM(), YMM(), YMM(), YMM()}
	for _, a := range acc {
		VXORPS(a, a, a)
	}
	SHRQ(U8(5), n)
	JZ(LabelRef(name + "_end"))
	Label(name + "_loop")
	for i, a := range acc {
		VFMADD231PS(Mem{Base: x, Disp: 32 * i}, zero, a)
	}
	ADDQ(U8(128), x)
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))
	Label(name + "_end")
	VADDPS(acc[1], acc[0], acc[0])
	VADDPS(acc[3], acc[2], acc[2])
	VADDPS(acc[2], acc[0], acc[0])
	VCMPPS(U8(3), acc[0], acc[0], acc[0]) // unordered: NaN
	m := GP32()
	VMOVMSKPS(acc[0], m)
	TESTL(m, m)
	r := GP8()
	SETEQ(r)
	Store(r, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// scale emits scaleAVX2: x[i] *= k for i < n, n a positive multiple of 32,
// four vectors an iteration; each product is rounded once, as the scalar
// multiply rounds it (nn.Scale, the gradient-norm clip).
func scale() {
	const name = "scaleAVX2"
	TEXT(name, NOSPLIT, "func(x *float32, n int, k float32)")
	Pragma("noescape")
	Doc(name + " multiplies x[:n] by k in place; n is a positive multiple of 32.")
	x := Load(Param("x"), GP64())
	n := Load(Param("n"), GP64())
	kp, err := Param("k").Resolve()
	if err != nil {
		panic(err)
	}
	k := YMM()
	VBROADCASTSS(kp.Addr, k)
	v := []VecVirtual{YMM(), YMM(), YMM(), YMM()}
	Label(name + "_loop")
	for i, r := range v {
		VMULPS(Mem{Base: x, Disp: 32 * i}, k, r)
	}
	for i, r := range v {
		VMOVUPS(r, Mem{Base: x, Disp: 32 * i})
	}
	ADDQ(U8(128), x)
	SUBQ(U8(32), n)
	JNZ(LabelRef(name + "_loop"))
	VZEROUPPER()
	RET()
}

// dot emits dot<ISA>: for r < rows and o < 4,
//
//	c[r·ldc + o] = Σ_{k<width} h[r·ldh + k] · w[o·ldw + k]
//
// (strides in bytes, width a multiple of the lanes): four outputs of a
// layer much narrower than a vector, each row's four sums reduced across
// lanes and stored together.
func dot(k isa) {
	name := "dot" + k.Suf
	TEXT(name, NOSPLIT, "func(c *float32, ldc int, h *float32, ldh int, w *float32, ldw int, rows, width int, bias *float32)")
	Pragma("noescape")
	Doc(name + " is four outputs of kernelSet.dot on " + k.Suf + ", their biases added.")
	vb := k.Lanes * size
	c := Load(Param("c"), GP64())
	ldc := Load(Param("ldc"), GP64())
	h := Load(Param("h"), GP64())
	ldh := Load(Param("ldh"), GP64())
	w0 := Load(Param("w"), GP64())
	ldw := Load(Param("ldw"), GP64())
	rows := Load(Param("rows"), GP64())
	width := Load(Param("width"), GP64())
	bias := Load(Param("bias"), GP64())
	TESTQ(rows, rows)
	JZ(LabelRef(name + "_done"))
	SHLQ(U8(2), width)
	w1, w2, w3 := GP64(), GP64(), GP64()
	LEAQ(Mem{Base: w0, Index: ldw, Scale: 1}, w1)
	LEAQ(Mem{Base: w1, Index: ldw, Scale: 1}, w2)
	LEAQ(Mem{Base: w2, Index: ldw, Scale: 1}, w3)
	ws := []Register{w0, w1, w2, w3}

	Label(name + "_row")
	acc := []VecVirtual{k.Vec(), k.Vec(), k.Vec(), k.Vec()}
	for _, a := range acc {
		VXORPS(a, a, a)
	}
	j := GP64()
	XORQ(j, j)
	Label(name + "_k")
	x := k.Vec()
	VMOVUPS(Mem{Base: h, Index: j, Scale: 1}, x)
	for o, a := range acc {
		VFMADD231PS(Mem{Base: ws[o], Index: j, Scale: 1}, x, a)
	}
	ADDQ(U32(vb), j)
	CMPQ(j, width)
	JB(LabelRef(name + "_k"))

	// Reduce the four accumulators to one XMM of four sums.
	ys := make([]VecVirtual, 4)
	for o, a := range acc {
		if k.Lanes == 16 {
			hi := YMM()
			VEXTRACTF64X4(U8(1), a, hi)
			ys[o] = YMM()
			VADDPS(hi, a.AsY(), ys[o])
		} else {
			ys[o] = a
		}
	}
	t1, t2 := YMM(), YMM()
	VHADDPS(ys[1], ys[0], t1)
	VHADDPS(ys[3], ys[2], t2)
	VHADDPS(t2, t1, t1)
	x1 := XMM()
	VEXTRACTF128(U8(1), t1, x1)
	VADDPS(x1, t1.AsX(), x1)
	VADDPS(Mem{Base: bias}, x1, x1) // biasRowsAVX2's add: sum + bias
	VMOVUPS(x1, Mem{Base: c})
	ADDQ(ldc, c)
	ADDQ(ldh, h)
	DECQ(rows)
	JNZ(LabelRef(name + "_row"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// logSoftmax3 emits logSoftmax3AVX2: for the first m rows (m rounded up to
// 8) of the three columns z0, z1, z2 of tileRows float32 at c, in place,
//
//	z_i = z_i − max(z) − log Σ_j exp(z_j − max(z)),
//
// the log-softmax of three logits, with the loss kernel's exp and log.
func logSoftmax3() {
	const name = "logSoftmax3AVX2"
	TEXT(name, NOSPLIT, "func(c *float32, m int)")
	Pragma("noescape")
	Doc(name + " is the log-softmax of three logits, eight rows at a time.")
	cp := Load(Param("c"), GP64())
	m := Load(Param("m"), GP64())
	TESTQ(m, m)
	JZ(LabelRef(name + "_done"))
	col := func(i int) Mem { return Mem{Base: cp, Disp: i * tileRows * 4} }
	Label(name + "_loop")
	y := []VecVirtual{YMM(), YMM(), YMM()}
	for i := range y {
		VMOVUPS(col(i), y[i])
	}
	mx := YMM()
	VMAXPS(y[1], y[0], mx)
	VMAXPS(y[2], mx, mx)
	sum := YMM()
	for i := range y {
		VSUBPS(mx, y[i], y[i])
		t, e := YMM(), YMM()
		VMOVAPS(y[i], t)
		expAVX2(t, e)
		if i == 0 {
			VMOVAPS(e, sum)
		} else {
			VADDPS(e, sum, sum)
		}
	}
	ls := YMM()
	logAVX2(sum, ls)
	for i := range y {
		VSUBPS(ls, y[i], y[i])
		VMOVUPS(y[i], col(i))
	}
	ADDQ(U8(32), cp)
	SUBQ(U8(8), m)
	JA(LabelRef(name + "_loop"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// sumSquares emits sumSquaresAVX2: Σ x[i]² over the first n elements (a
// multiple of 16) of x, each converted to float64 and accumulated in
// float64 in four vectors of four lanes, summed at the end.
func sumSquares() {
	const name = "sumSquaresAVX2"
	TEXT(name, NOSPLIT, "func(x *float32, n int) float64")
	Pragma("noescape")
	Doc(name + " is the vector part of GradNorm for float32.")
	x := Load(Param("x"), GP64())
	n := Load(Param("n"), GP64())
	acc := []VecVirtual{YMM(), YMM(), YMM(), YMM()}
	for _, a := range acc {
		VXORPD(a, a, a)
	}
	SHRQ(U8(4), n)
	JZ(LabelRef(name + "_end"))
	Label(name + "_loop")
	for i, a := range acc {
		d := YMM()
		VCVTPS2PD(Mem{Base: x, Disp: 16 * i}, d)
		VFMADD231PD(d, d, a)
	}
	ADDQ(U8(64), x)
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))
	Label(name + "_end")
	VADDPD(acc[1], acc[0], acc[0])
	VADDPD(acc[3], acc[2], acc[2])
	VADDPD(acc[2], acc[0], acc[0])
	hi := XMM()
	VEXTRACTF128(U8(1), acc[0], hi)
	VADDPD(hi, acc[0].AsX(), hi)
	lo := XMM()
	VUNPCKHPD(hi, hi, lo)
	VADDSD(lo, hi, hi)
	Store(hi, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// panelOuts is the most outputs a panelSums kernel keeps in registers.
const panelOuts = 8

// panelSums is the float64 sums of nn.LogitsRows for a panel of rows (as
// many as a vector holds float64 lanes) and r consecutive outputs: c[i] =
// b[i] + Σₖ w[k][i]·h[k], lane by lane, each product rounded and then added
// (VMULPD, VADDPD: no FMA), k from 0 up — the scalar loop's arithmetic in
// each lane, so the sums are bit for bit Logits'. h is the panel's input,
// width vectors; w the transposed weights from the block's first output,
// ldw bytes from one input to the next; c receives r vectors.
func panelSums(k isa, r int) {
	name := fmt.Sprintf("panelSums%d%s", r, k.Suf)
	TEXT(name, NOSPLIT, "func(c *float64, h *float64, w *float64, ldw int, b *float64, width int)")
	Pragma("noescape")
	Doc(fmt.Sprintf("%s is LogitsRows' sums for one panel of rows, r = %d outputs, on %s.", name, r, k.Suf))
	vb := k.Lanes * size // bytes of a vector, whatever it holds
	c := Load(Param("c"), GP64())
	h := Load(Param("h"), GP64())
	w := Load(Param("w"), GP64())
	ldw := Load(Param("ldw"), GP64())
	b := Load(Param("b"), GP64())
	width := Load(Param("width"), GP64())
	acc := make([]VecVirtual, r)
	for i := range acc {
		acc[i] = k.Vec()
		VBROADCASTSD(Mem{Base: b, Disp: 8 * i}, acc[i])
	}
	Label(name + "_k")
	x := k.Vec()
	VMOVUPD(Mem{Base: h}, x)
	for i := range acc {
		t := k.Vec()
		VBROADCASTSD(Mem{Base: w, Disp: 8 * i}, t)
		VMULPD(x, t, t)
		VADDPD(t, acc[i], acc[i])
	}
	ADDQ(U32(vb), h)
	ADDQ(ldw, w)
	DECQ(width)
	JNZ(LabelRef(name + "_k"))
	for i := range acc {
		VMOVUPD(acc[i], Mem{Base: c, Disp: i * vb})
	}
	VZEROUPPER()
	RET()
}

// probeChains is the independent multiply-add chains of fmaProbe: enough
// to cover an FMA latency of 4–6 cycles on two units (8–12 in flight),
// within the 16 YMM registers with the two operands.
const probeChains = 12

// fmaProbe emits fma<ISA>, the FMA-throughput probe of internal/peak: n
// times, probeChains independent VFMADD231PS on full vectors of registers
// (acc = x·y + acc, no memory operand), and it returns the FLOPs it ran,
// n · probeChains · lanes · 2. The operands are 1: the sums count up and
// stay normal (past 2²⁴ they stop changing, which costs the unit nothing).
func fmaProbe(k isa) {
	name := "fma" + k.Suf
	TEXT(name, NOSPLIT, "func(n int) (flops int)")
	Doc(fmt.Sprintf("%s runs n×%d independent %d-lane multiply-adds and returns their FLOPs.", name, probeChains, k.Lanes))
	n := Load(Param("n"), GP64())
	flops := GP64()
	IMUL3Q(U32(probeChains*k.Lanes*2), n, flops)
	one := GP32()
	MOVL(U32(math.Float32bits(1)), one)
	x := k.Vec()
	VMOVD(one, x.AsX())
	VBROADCASTSS(x.AsX(), x)
	acc := make([]VecVirtual, probeChains)
	for i := range acc {
		acc[i] = k.Vec()
		VXORPS(acc[i], acc[i], acc[i])
	}
	TESTQ(n, n)
	JLE(LabelRef(name + "_done"))
	Label(name + "_loop")
	for _, a := range acc {
		VFMADD231PS(x, x, a)
	}
	DECQ(n)
	JNZ(LabelRef(name + "_loop"))
	Label(name + "_done")
	Store(flops, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// transpose512 emits transposeAVX512: dst[c·ldd + r] = src[r·lds + c] for
// r < rows and c < cols (strides in bytes), 16 rows of src at a time: for
// each column c one gather of the 16 rows' elements (idx holds j·lds for
// lane j) and one store of 16 adjacent elements of dst, both masked to the
// rows left. A copy, so the same bits as any other order; it replaces a
// scalar loop whose four-element stores into every row of dst were most
// of the weights' copy at the start of a step.
func transpose512() {
	const name = "transposeAVX512"
	TEXT(name, NOSPLIT, "func(dst *float32, ldd int, src *float32, lds, rows, cols int, idx *[16]int32)")
	Pragma("noescape")
	Doc(name + " is transposeTo on AVX-512.")
	dst := Load(Param("dst"), GP64())
	ldd := Load(Param("ldd"), GP64())
	src := Load(Param("src"), GP64())
	lds := Load(Param("lds"), GP64())
	rows := Load(Param("rows"), GP64())
	cols := Load(Param("cols"), GP64())
	ip := Load(Param("idx"), GP64())
	idx := ZMM()
	VMOVDQU32(Mem{Base: ip}, idx)
	TESTQ(cols, cols)
	JZ(LabelRef(name + "_done"))
	SHLQ(U8(4), lds) // src advances 16 rows a block
	Label(name + "_block")
	TESTQ(rows, rows)
	JZ(LabelRef(name + "_done"))
	// mask: the min(16, rows) low bits.
	n, mk := GP64(), GP64()
	MOVQ(U32(16), n)
	CMPQ(rows, n)
	CMOVQLT(rows, n)
	SUBQ(n, rows)
	one := GP64()
	MOVQ(U32(1), one)
	SHLXQ(n, one, mk)
	DECQ(mk)
	k := K()
	KMOVW(mk.As32(), k)
	sp, dp, c := GP64(), GP64(), GP64()
	MOVQ(src, sp)
	MOVQ(dst, dp)
	MOVQ(cols, c)
	Label(name + "_col")
	g, v := K(), ZMM()
	KMOVW(k, g)     // the gather clears its mask
	VPXORD(v, v, v) // no dependency on the last gather
	VGATHERDPS(Mem{Base: sp, Index: idx, Scale: 1}, g, v)
	VMOVUPS(v, k, Mem{Base: dp})
	ADDQ(U8(size), sp)
	ADDQ(ldd, dp)
	DECQ(c)
	JNZ(LabelRef(name + "_col"))
	ADDQ(lds, src)
	ADDQ(U8(16*size), dst)
	JMP(LabelRef(name + "_block"))
	Label(name + "_done")
	VZEROUPPER()
	RET()
}

// lossVec512 emits lossRowsAVX512: lossVecAVX2's loss, lane for lane the
// same operations (lossGroup emits both), on 16 rows a vector, reading the
// rows where they are (the logits from rows of z and the reference
// log-probabilities by gathers, the actions, advantages and behaviour
// log-probabilities by masked loads) and scattering the gradient into the
// rows of dz (its three columns; the padding is left as it is), instead of
// a gather into columns and a scatter out of them in Go. The valid rows
// are a mask of the rows left. The statistics are added lane by lane into
// 8-lane sums in lossVecAVX2's order: rows 0–7 of each 16, then rows 8–15
// (moved to the low half), so that each of out's lanes is the same
// float32 sum.
func lossVec512() {
	lossConsts16()
	const name = "lossRowsAVX512"
	TEXT(name, NOSPLIT, fmt.Sprintf("func(z, dz *float32, ld int, ref *float32, act *uint8, adv, beh *float32, m int, k *[%d][16]float32, idx *[2][16]int32, out *[3][8]float32) (clipLow, clipHigh int)", kcCount))
	Pragma("noescape")
	Doc(name + " is the float32 loss on AVX-512, on the rows in place.")
	zp := Load(Param("z"), GP64())
	dzp := Load(Param("dz"), GP64())
	ld16 := Load(Param("ld"), GP64())
	SHLQ(U8(4), ld16) // 16 rows of z and dz
	refp := Load(Param("ref"), GP64())
	actp := Load(Param("act"), GP64())
	advp := Load(Param("adv"), GP64())
	behp := Load(Param("beh"), GP64())
	m := Load(Param("m"), GP64())
	kp := Load(Param("k"), GP64())
	lowN, highN := GP64(), GP64()
	XORQ(lowN, lowN)
	XORQ(highN, highN)
	polS, klS, entS := ZMM(), ZMM(), ZMM()
	VPXORD(polS, polS, polS)
	VPXORD(klS, klS, klS)
	VPXORD(entS, entS, entS)
	idxZ, idxQ := ZMM(), ZMM()
	ip := Load(Param("idx"), GP64()) // the gathers' byte offsets of 16 rows of z and of ref
	VMOVDQU32(Mem{Base: ip}, idxZ)
	VMOVDQU32(Mem{Base: ip, Disp: 64}, idxQ)
	lc := lc16
	TESTQ(m, m)
	JZ(LabelRef(name + "_done"))

	Label(name + "_loop")
	// kv: the min(16, m) valid rows.
	kv := K()
	{
		n, one, mk := GP64(), GP64(), GP64()
		MOVQ(U32(16), n)
		CMPQ(m, n)
		CMOVQLT(m, n)
		MOVQ(U32(1), one)
		SHLXQ(n, one, mk)
		DECQ(mk)
		KMOVW(mk.As32(), kv)
	}
	gather := func(base Register, idx VecVirtual, off int) VecVirtual {
		g, v := K(), ZMM()
		KMOVW(kv, g)
		VPXORD(v, v, v)
		VGATHERDPS(Mem{Base: base, Index: idx, Scale: 1, Disp: off}, g, v)
		return v
	}
	valid, a, adv, beh := ZMM(), ZMM(), ZMM(), ZMM()
	VMOVUPS_Z(lc(lkOne), kv, valid)
	VPMOVZXBD_Z(Mem{Base: actp}, kv, a)
	VCVTDQ2PS(a, a)
	VMOVUPS_Z(Mem{Base: advp}, kv, adv)
	VMOVUPS_Z(Mem{Base: behp}, kv, beh)
	lossGroup(v16, lossIO{
		kc: func(i int) Mem { return Mem{Base: kp, Disp: 64 * i} },
		col: func(c int) Op {
			switch c {
			case colZ0, colZ1, colZ2:
				return gather(zp, idxZ, 4*(c-colZ0))
			case colQ0, colQ1, colQ2:
				return gather(refp, idxQ, 4*(c-colQ0))
			case colA:
				return a
			case colAdv:
				return adv
			case colBeh:
				return beh
			case colValid:
				return valid
			}
			panic(fmt.Sprintf("lossRowsAVX512 has no column %d", c))
		},
		keep:      func(v VecVirtual, slot int) Op { return v },
		validMask: func(VecVirtual) Op { return kv },
		// The gradient's column i scattered into the rows of dz.
		grad: func(i int, g VecVirtual) {
			ks := K()
			KMOVW(kv, ks)
			VSCATTERDPS(g, ks, Mem{Base: dzp, Index: idxZ, Scale: 1, Disp: 4 * i})
		},
		polS: polS, klS: klS, entS: entS,
		lowN: lowN, highN: highN,
	})
	// The next 16 rows.
	ADDQ(ld16, zp)
	ADDQ(ld16, dzp)
	ADDQ(U32(16*numActions*size), refp)
	ADDQ(U8(16), actp)
	ADDQ(U8(16*size), advp)
	ADDQ(U8(16*size), behp)
	SUBQ(U8(16), m)
	JA(LabelRef(name + "_loop"))

	Label(name + "_done")
	op := Load(Param("out"), GP64())
	VEXTRACTF64X4(U8(0), polS, Mem{Base: op})
	VEXTRACTF64X4(U8(0), klS, Mem{Base: op, Disp: 32})
	VEXTRACTF64X4(U8(0), entS, Mem{Base: op, Disp: 64})
	Store(lowN, ReturnIndex(0))
	Store(highN, ReturnIndex(1))
	VZEROUPPER()
	RET()
}
