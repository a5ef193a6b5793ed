package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
