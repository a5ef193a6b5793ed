package main

import (
	. "github.com/mmcloughlin/avo/build"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

// lossIO is what lossVecAVX2 and lossRowsAVX512 differ in around
// lossGroup's arithmetic: where a group's rows come from, where the values
// the gradient needs wait, and where the gradient and sums go.
type lossIO struct {
	kc func(i int) Mem // per-call constant i (kcLo…)
	// col is column c of the group's rows (colZ0…colValid) as an operand:
	// lossCols in memory on AVX2; on AVX-512 a register loaded before
	// lossGroup, or for the logits and the reference a gather.
	col func(c int) Op
	// keep holds v, a log-probability, probability or log-ratio (scratch
	// slot scratchL+i, 3+i or 6+i), until the gradient: AVX2 spills it to
	// the scratch vectors, AVX-512 keeps the register.
	keep func(v VecVirtual, slot int) Op
	// validMask is the mask of the rows the clip counts count.
	validMask func(zero VecVirtual) Op
	// grad stores column i of the gradient.
	grad            func(i int, g VecVirtual)
	polS, klS, entS VecVirtual // the 8-lane sums of out
	lowN, highN     GPVirtual  // the clip counts
}

// lossGroup emits the loss on one group of rows (8 on AVX2, 16 on
// AVX-512): written once for both kernels so that they stay lane for lane
// the same operations (nn's tests hold lossAVX512 to lossAVX2's bits).
// avo's register allocator breaks ties by the order registers are created
// in, so moving a vs.vec() changes the registers chosen (not the results).
func lossGroup(vs vset, io lossIO) {
	lc, kc, col := vs.c, io.kc, io.col
	// Softmax and log-softmax of the three logits.
	y := []VecVirtual{vs.inReg(col(colZ0)), vs.inReg(col(colZ1)), vs.inReg(col(colZ2))}
	mx := vs.vec()
	VMAXPS(y[1], y[0], mx)
	VMAXPS(y[2], mx, mx)
	for i := range y {
		VSUBPS(mx, y[i], y[i])
	}
	e := []VecVirtual{vs.vec(), vs.vec(), vs.vec()}
	for i := range e {
		t := vs.vec()
		VMOVAPS(y[i], t)
		expV(vs, t, e[i])
	}
	sum := vs.vec()
	VADDPS(e[1], e[0], sum)
	VADDPS(e[2], sum, sum)
	inv := vs.vec()
	VMOVUPS(lc(lkOne), inv)
	VDIVPS(sum, inv, inv)
	for i := range e {
		VMULPS(inv, e[i], e[i]) // p
	}
	ls := vs.vec()
	logV(vs, sum, ls)
	var lk, pk, dk [3]Op // l, p and d kept for the gradient
	for i := range y {
		VSUBPS(ls, y[i], y[i]) // l = z − logsumexp
		lk[i] = io.keep(y[i], scratchL+i)
		pk[i] = io.keep(e[i], 3+i)
	}
	l, p := y, e
	// KL to the reference and entropy.
	klv, ent := vs.vec(), vs.vec()
	d := []VecVirtual{vs.vec(), vs.vec(), vs.vec()}
	for i := range l {
		VSUBPS(col(colQ0+i), l[i], d[i])
		dk[i] = io.keep(d[i], 6+i)
		if i == 0 {
			VMULPS(d[i], p[i], klv)
			VMULPS(l[i], p[i], ent)
		} else {
			VFMADD231PS(d[i], p[i], klv)
			VFMADD231PS(l[i], p[i], ent)
		}
	}
	vs.xor(lc(lkSign), ent, ent)

	// oneHot sets o to the one-hot of the action for action i, by
	// arithmetic, exact for a ∈ {0, 1, 2}: (1−a)(2−a)/2, a(2−a), a(a−1)/2.
	oneHot := func(i int, o VecVirtual) {
		a, t := vs.inReg(col(colA)), vs.vec()
		switch i {
		case 0:
			VMOVUPS(lc(lkOne), o)
			VSUBPS(a, o, o)
			VMOVUPS(lc(lkTwo), t)
			VSUBPS(a, t, t)
			VMULPS(t, o, o)
			VMULPS(lc(lkHalf), o, o)
		case 1:
			VMOVUPS(lc(lkTwo), o)
			VSUBPS(a, o, o)
			VMULPS(a, o, o)
		case 2:
			VSUBPS(lc(lkOne), a, o)
			VMULPS(a, o, o)
			VMULPS(lc(lkHalf), o, o)
		}
	}
	la := vs.vec()
	for i := range l {
		o := vs.vec()
		oneHot(i, o)
		if i == 0 {
			VMULPS(o, l[i], la)
		} else {
			VFMADD231PS(o, l[i], la)
		}
	}
	// The clipped ratio term.
	raw := la
	VSUBPS(col(colBeh), la, raw)
	rho, rr := vs.vec(), vs.vec()
	VMAXPS(lc(lkM20), raw, rr)
	VMINPS(lc(lkP20), rr, rr)
	expV(vs, rr, rho)
	u, v := vs.vec(), vs.vec()
	VMULPS(col(colAdv), rho, u)
	VMAXPS(kc(kcLo), rho, v)
	VMINPS(kc(kcHi), v, v)
	VMULPS(col(colAdv), v, v)
	in, t := vs.mask(), vs.mask()
	VCMPPS(U8(cmpGE), kc(kcLo), rho, in)
	VCMPPS(U8(cmpLE), kc(kcHi), rho, t)
	vs.mand(t, in, in) // ρ within the clip range
	// ∂L_clip/∂ρ = −A·f: f = 1 when min takes ρA or the clamp passes, ½ on
	// a tie outside the clip range, 0 when the clipped term wins.
	VCMPPS(U8(cmpLT), v, u, t)
	vs.mor(t, in, in)
	f := vs.vec()
	tie := Register(t)
	if !vs.kmask {
		tie = f // a vector mask can be f itself
	}
	VCMPPS(U8(cmpEQ), v, u, tie)
	vs.masked(tie, lc(lkHalf), f)
	vs.blend(in, lc(lkOne), f)
	VMINPS(v, u, u)
	VFNMADD231PS(col(colValid), u, io.polS) // polS −= min(u, v)·valid
	VFMADD231PS(col(colValid), klv, io.klS)
	VFMADD231PS(col(colValid), ent, io.entS)
	if vs.lanes == 16 {
		// Rows 8–15 into the low half, added after rows 0–7 as
		// lossVecAVX2's next group of 8 is.
		valid := col(colValid)
		vh, uh, kh, eh := ZMM(), ZMM(), ZMM(), ZMM()
		VSHUFF32X4(U8(0x4e), valid, valid, vh)
		VSHUFF32X4(U8(0x4e), u, u, uh)
		VSHUFF32X4(U8(0x4e), klv, klv, kh)
		VSHUFF32X4(U8(0x4e), ent, ent, eh)
		VFNMADD231PS(vh, uh, io.polS)
		VFMADD231PS(vh, kh, io.klS)
		VFMADD231PS(vh, eh, io.entS)
	}
	// dLp = −A·f·ρ where the raw log-ratio is within ±20, else 0.
	dlp := f
	VMULPS(rho, dlp, dlp)
	VMULPS(col(colAdv), dlp, dlp)
	vs.xor(lc(lkSign), dlp, dlp)
	VCMPPS(U8(cmpGE), lc(lkM20), raw, t)
	vs.masked(t, dlp, dlp)
	VCMPPS(U8(cmpLE), lc(lkP20), raw, t)
	vs.masked(t, dlp, dlp)
	// Clip counts over the valid rows.
	zero := vs.vec()
	vs.xor(zero, zero, zero)
	adv := vs.inReg(col(colAdv))
	cnt := GP64()
	VCMPPS(U8(cmpLT), kc(kcLo), rho, t)
	VCMPPS(U8(cmpLT), zero, adv, in)
	vs.mand(in, t, t)
	vm := io.validMask(zero)
	vs.mand(vm, t, t)
	vs.movmsk(t, cnt)
	POPCNTL(cnt.As32(), cnt.As32())
	ADDQ(cnt, io.lowN)
	VCMPPS(U8(cmpGT), kc(kcHi), rho, t)
	VCMPPS(U8(cmpGT), zero, adv, in)
	vs.mand(in, t, t)
	vs.mand(vm, t, t)
	vs.movmsk(t, cnt)
	POPCNTL(cnt.As32(), cnt.As32())
	ADDQ(cnt, io.highN)
	// Gradient: g_i = (β(d_i − KL) + c_H(l_i + H) − dLp)·p_i + dLp·onehot_i,
	// scaled by 1/B.
	for i := 0; i < 3; i++ {
		g, s, o := vs.vec(), vs.vec(), vs.vec()
		vmov(dk[i], g)
		VSUBPS(klv, g, g)
		VMULPS(kc(kcBeta), g, g)
		vmov(lk[i], s)
		VADDPS(ent, s, s)
		VFMADD231PS(kc(kcEntropy), s, g)
		VSUBPS(dlp, g, g)
		VMULPS(pk[i], g, g)
		oneHot(i, o)
		VFMADD231PS(o, dlp, g)
		VMULPS(kc(kcScale), g, g)
		io.grad(i, g)
	}
}
