package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
