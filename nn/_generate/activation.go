package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
