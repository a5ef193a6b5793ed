package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
)

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
