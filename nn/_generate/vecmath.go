package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
