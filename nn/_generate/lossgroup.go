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
// in, so moving a vs.vec() changes the registers chosen (not the results):
// the phases below run, and make their registers, in the order of the
// formulas.
func lossGroup(vs vset, io lossIO) {
	g := &lossRows{vs: vs, io: io}
	g.softmax()
	g.klEntropy()
	u := g.clipTerm()
	g.addSums(u)
	g.dLp()
	g.clipCounts()
	g.gradient()
}

// lossRows is one group's values as lossGroup's phases hand them on.
type lossRows struct {
	vs vset
	io lossIO

	l, p       []VecVirtual // log-probabilities and probabilities
	lk, pk, dk [3]Op        // l, p and d kept for the gradient
	klv, ent   VecVirtual   // KL to the reference and entropy
	raw, rho   VecVirtual   // the log-ratio to the behaviour policy, its clamped exp
	in, t      Register     // masks
	f          VecVirtual   // the clip term's factor; then dLp
}

// softmax computes the softmax and log-softmax of the three logits and
// keeps both for the gradient.
func (g *lossRows) softmax() {
	vs, lc, col := g.vs, g.vs.c, g.io.col
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
	for i := range y {
		VSUBPS(ls, y[i], y[i]) // l = z − logsumexp
		g.lk[i] = g.io.keep(y[i], scratchL+i)
		g.pk[i] = g.io.keep(e[i], 3+i)
	}
	g.l, g.p = y, e
}

// klEntropy computes the KL to the reference and the entropy, keeping the
// log-ratios d for the gradient.
func (g *lossRows) klEntropy() {
	vs, l, p := g.vs, g.l, g.p
	klv, ent := vs.vec(), vs.vec()
	d := []VecVirtual{vs.vec(), vs.vec(), vs.vec()}
	for i := range l {
		VSUBPS(g.io.col(colQ0+i), l[i], d[i])
		g.dk[i] = g.io.keep(d[i], 6+i)
		if i == 0 {
			VMULPS(d[i], p[i], klv)
			VMULPS(l[i], p[i], ent)
		} else {
			VFMADD231PS(d[i], p[i], klv)
			VFMADD231PS(l[i], p[i], ent)
		}
	}
	vs.xor(vs.c(lkSign), ent, ent)
	g.klv, g.ent = klv, ent
}

// oneHot sets o to the one-hot of the action for action i, by
// arithmetic, exact for a ∈ {0, 1, 2}: (1−a)(2−a)/2, a(2−a), a(a−1)/2.
func (g *lossRows) oneHot(i int, o VecVirtual) {
	vs, lc := g.vs, g.vs.c
	a, t := vs.inReg(g.io.col(colA)), vs.vec()
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

// clipTerm computes the clipped ratio term min(ρA, clip(ρ)A), returned,
// and f, the factor of ∂L_clip/∂ρ.
func (g *lossRows) clipTerm() VecVirtual {
	vs, lc, kc, col := g.vs, g.vs.c, g.io.kc, g.io.col
	la := vs.vec()
	for i := range g.l {
		o := vs.vec()
		g.oneHot(i, o)
		if i == 0 {
			VMULPS(o, g.l[i], la)
		} else {
			VFMADD231PS(o, g.l[i], la)
		}
	}
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
	g.raw, g.rho, g.in, g.t, g.f = raw, rho, in, t, f
	return u
}

// addSums adds the valid rows' policy loss (−u), KL and entropy into the
// sums.
func (g *lossRows) addSums(u VecVirtual) {
	col, io, klv, ent := g.io.col, g.io, g.klv, g.ent
	VFNMADD231PS(col(colValid), u, io.polS) // polS −= min(u, v)·valid
	VFMADD231PS(col(colValid), klv, io.klS)
	VFMADD231PS(col(colValid), ent, io.entS)
	if g.vs.lanes == 16 {
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
}

// dLp turns f into dLp = −A·f·ρ where the raw log-ratio is within ±20,
// else 0.
func (g *lossRows) dLp() {
	vs, lc, t, dlp := g.vs, g.vs.c, g.t, g.f
	VMULPS(g.rho, dlp, dlp)
	VMULPS(g.io.col(colAdv), dlp, dlp)
	vs.xor(lc(lkSign), dlp, dlp)
	VCMPPS(U8(cmpGE), lc(lkM20), g.raw, t)
	vs.masked(t, dlp, dlp)
	VCMPPS(U8(cmpLE), lc(lkP20), g.raw, t)
	vs.masked(t, dlp, dlp)
}

// clipCounts adds the valid rows clipped low (ρ below the range with
// A > 0) and high (above it with A < 0) to the counts.
func (g *lossRows) clipCounts() {
	vs, kc, io, in, t, rho := g.vs, g.io.kc, g.io, g.in, g.t, g.rho
	zero := vs.vec()
	vs.xor(zero, zero, zero)
	adv := vs.inReg(io.col(colAdv))
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
}

// gradient stores g_i = (β(d_i − KL) + c_H(l_i + H) − dLp)·p_i +
// dLp·onehot_i, scaled by 1/B.
func (g *lossRows) gradient() {
	vs, kc, dlp := g.vs, g.io.kc, g.f
	for i := 0; i < 3; i++ {
		gv, s, o := vs.vec(), vs.vec(), vs.vec()
		vmov(g.dk[i], gv)
		VSUBPS(g.klv, gv, gv)
		VMULPS(kc(kcBeta), gv, gv)
		vmov(g.lk[i], s)
		VADDPS(g.ent, s, s)
		VFMADD231PS(kc(kcEntropy), s, gv)
		VSUBPS(dlp, gv, gv)
		VMULPS(g.pk[i], gv, gv)
		g.oneHot(i, o)
		VFMADD231PS(o, dlp, gv)
		VMULPS(kc(kcScale), gv, gv)
		g.io.grad(i, gv)
	}
}
