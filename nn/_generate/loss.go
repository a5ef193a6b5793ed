package main

import (
	"fmt"
	"math"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
	r := loadLossRows512()
	TESTQ(r.m, r.m)
	JZ(LabelRef(name + "_done"))

	Label(name + "_loop")
	kv := validRows16(r.m)
	valid, a, adv, beh := ZMM(), ZMM(), ZMM(), ZMM()
	VMOVUPS_Z(lc16(lkOne), kv, valid)
	VPMOVZXBD_Z(Mem{Base: r.actp}, kv, a)
	VCVTDQ2PS(a, a)
	VMOVUPS_Z(Mem{Base: r.advp}, kv, adv)
	VMOVUPS_Z(Mem{Base: r.behp}, kv, beh)
	lossGroup(v16, r.io(kv, valid, a, adv, beh))
	// The next 16 rows.
	ADDQ(r.ld16, r.zp)
	ADDQ(r.ld16, r.dzp)
	ADDQ(U32(16*numActions*size), r.refp)
	ADDQ(U8(16), r.actp)
	ADDQ(U8(16*size), r.advp)
	ADDQ(U8(16*size), r.behp)
	SUBQ(U8(16), r.m)
	JA(LabelRef(name + "_loop"))

	Label(name + "_done")
	op := Load(Param("out"), GP64())
	VEXTRACTF64X4(U8(0), r.polS, Mem{Base: op})
	VEXTRACTF64X4(U8(0), r.klS, Mem{Base: op, Disp: 32})
	VEXTRACTF64X4(U8(0), r.entS, Mem{Base: op, Disp: 64})
	Store(r.lowN, ReturnIndex(0))
	Store(r.highN, ReturnIndex(1))
	VZEROUPPER()
	RET()
}

// lossRows512 is lossRowsAVX512's arguments and running sums in
// registers.
type lossRows512 struct {
	zp, dzp, ld16, refp, actp, advp, behp, m, kp Register
	lowN, highN                                  GPVirtual
	polS, klS, entS                              VecVirtual
	idxZ, idxQ                                   VecVirtual // the gathers' byte offsets of 16 rows of z and of ref
}

// loadLossRows512 loads the arguments and zeroes the sums and counts.
func loadLossRows512() lossRows512 {
	var r lossRows512
	r.zp = Load(Param("z"), GP64())
	r.dzp = Load(Param("dz"), GP64())
	r.ld16 = Load(Param("ld"), GP64())
	SHLQ(U8(4), r.ld16) // 16 rows of z and dz
	r.refp = Load(Param("ref"), GP64())
	r.actp = Load(Param("act"), GP64())
	r.advp = Load(Param("adv"), GP64())
	r.behp = Load(Param("beh"), GP64())
	r.m = Load(Param("m"), GP64())
	r.kp = Load(Param("k"), GP64())
	r.lowN, r.highN = GP64(), GP64()
	XORQ(r.lowN, r.lowN)
	XORQ(r.highN, r.highN)
	r.polS, r.klS, r.entS = ZMM(), ZMM(), ZMM()
	VPXORD(r.polS, r.polS, r.polS)
	VPXORD(r.klS, r.klS, r.klS)
	VPXORD(r.entS, r.entS, r.entS)
	r.idxZ, r.idxQ = ZMM(), ZMM()
	ip := Load(Param("idx"), GP64())
	VMOVDQU32(Mem{Base: ip}, r.idxZ)
	VMOVDQU32(Mem{Base: ip, Disp: 64}, r.idxQ)
	return r
}

// validRows16 is the mask of the min(16, m) valid rows.
func validRows16(m Register) Register {
	kv := K()
	n, one, mk := GP64(), GP64(), GP64()
	MOVQ(U32(16), n)
	CMPQ(m, n)
	CMOVQLT(m, n)
	MOVQ(U32(1), one)
	SHLXQ(n, one, mk)
	DECQ(mk)
	KMOVW(mk.As32(), kv)
	return kv
}

// io is lossGroup's input and output on 16 rows in place: the logits and
// the reference gathered from their rows, the other columns the registers
// given, the gradient scattered into the rows of dz.
func (r lossRows512) io(kv Register, valid, a, adv, beh VecVirtual) lossIO {
	gather := func(base Register, idx VecVirtual, off int) VecVirtual {
		g, v := K(), ZMM()
		KMOVW(kv, g)
		VPXORD(v, v, v)
		VGATHERDPS(Mem{Base: base, Index: idx, Scale: 1, Disp: off}, g, v)
		return v
	}
	return lossIO{
		kc: func(i int) Mem { return Mem{Base: r.kp, Disp: 64 * i} },
		col: func(c int) Op {
			switch c {
			case colZ0, colZ1, colZ2:
				return gather(r.zp, r.idxZ, 4*(c-colZ0))
			case colQ0, colQ1, colQ2:
				return gather(r.refp, r.idxQ, 4*(c-colQ0))
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
			VSCATTERDPS(g, ks, Mem{Base: r.dzp, Index: r.idxZ, Scale: 1, Disp: 4 * i})
		},
		polS: r.polS, klS: r.klS, entS: r.entS,
		lowN: r.lowN, highN: r.highN,
	}
}
