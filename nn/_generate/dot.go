package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

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
