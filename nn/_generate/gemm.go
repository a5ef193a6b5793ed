package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
	name := gemmText(k, R, V, tanhGrad)
	vb := k.Lanes * size
	p := gemmLoadParams(R)
	s := gemmAccumulators(k, R, V, name, p.c, vb)
	gemmLoop(k, name, p, s, vb)
	if tanhGrad {
		gemmTanhGradEpi(k, R, p.c, s, vb)
	}
	for r := range s {
		for v := range s[r] {
			VMOVUPS(s[r][v], p.c.at(r, v*vb))
		}
	}
	VZEROUPPER()
	RET()
}

// gemmText opens the kernel's function: its name, signature and doc.
func gemmText(k isa, R, V int, tanhGrad bool) string {
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
	return name
}

// gemmRows addresses up to six rows of a matrix from two base pointers,
// p0 (row 0) and p3 (row 3), with stride s and double stride s2.
type gemmRows struct{ p0, p3, s, s2 Register }

// at is the address of row r plus off bytes.
func (g gemmRows) at(r, off int) Mem {
	base := g.p0
	if r >= 3 {
		base, r = g.p3, r-3
	}
	switch r {
	case 0:
		return Mem{Base: base, Disp: off}
	case 1:
		return Mem{Base: base, Index: g.s, Scale: 1, Disp: off}
	default:
		return Mem{Base: base, Index: g.s2, Scale: 1, Disp: off}
	}
}

// gemmParams are a kernel's arguments in registers: the rows of C and A,
// and B with its stride, A's step st along k and the count n.
type gemmParams struct {
	c, a       gemmRows
	b, ldb, st Register
	n          Register
}

// gemmLoadParams loads the arguments and the second base pointers and
// double strides the R rows need.
func gemmLoadParams(R int) gemmParams {
	c0 := Load(Param("c"), GP64())
	ldc := Load(Param("ldc"), GP64())
	a0 := Load(Param("a"), GP64())
	sp := Load(Param("sp"), GP64())
	st := Load(Param("st"), GP64())
	b := Load(Param("b"), GP64())
	ldb := Load(Param("ldb"), GP64())
	n := Load(Param("n"), GP64())
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
	return gemmParams{
		c: gemmRows{c0, c3, ldc, ldc2}, a: gemmRows{a0, a3, sp, sp2},
		b: b, ldb: ldb, st: st, n: n,
	}
}

// gemmAccumulators makes the R×V accumulators: zero, or C's values when
// acc is set.
func gemmAccumulators(k isa, R, V int, name string, c gemmRows, vb int) [][]VecVirtual {
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
			VMOVUPS(c.at(r, v*vb), s[r][v])
		}
	}
	return s
}

// gemmLoop emits the k loop: V vectors of B, then for each row A's
// element broadcast and V multiply-adds into the row's accumulators.
func gemmLoop(k isa, name string, p gemmParams, s [][]VecVirtual, vb int) {
	R, V := len(s), len(s[0])
	Label(name + "_loop")
	w := make([]VecVirtual, V)
	for v := range w {
		w[v] = k.Vec()
		VMOVUPS(Mem{Base: p.b, Disp: v * vb}, w[v])
	}
	for r := 0; r < R; r++ {
		x := k.Vec()
		VBROADCASTSS(p.a.at(r, 0), x)
		for v := 0; v < V; v++ {
			VFMADD231PS(w[v], x, s[r][v])
		}
	}
	ADDQ(p.st, p.a.p0)
	if R > 3 {
		ADDQ(p.st, p.a.p3)
	}
	ADDQ(p.ldb, p.b)
	DECQ(p.n)
	JNZ(LabelRef(name + "_loop"))
}

// gemmTanhGradEpi multiplies each accumulator by 1 − h², h read with C's
// layout: its rows from h0 and h3 with C's strides.
func gemmTanhGradEpi(k isa, R int, c gemmRows, s [][]VecVirtual, vb int) {
	h0 := Load(Param("h"), GP64())
	var h3 Register
	if R > 3 {
		h3 = GP64()
		LEAQ(Mem{Base: h0, Index: c.s2, Scale: 1}, h3)
		ADDQ(c.s, h3)
	}
	h := gemmRows{h0, h3, c.s, c.s2}
	for r := range s {
		for v := range s[r] {
			hv, t := k.Vec(), k.Vec()
			VMOVUPS(h.at(r, v*vb), hv)
			VMOVUPS(entry(oneK, 0), t)
			VFNMADD231PS(hv, hv, t) // t = 1 − h·h
			VMULPS(s[r][v], t, s[r][v])
		}
	}
}
