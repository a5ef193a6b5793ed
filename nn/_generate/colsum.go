package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
