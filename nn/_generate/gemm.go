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
