package nn

import "math"

// lossSums are one worker's sums of the per-row loss terms.
type lossSums struct {
	loss, pol, kl, ent float64
	clipLow, clipHigh  int
}

func (s *lossSums) add(o lossSums) {
	s.loss += o.loss
	s.pol += o.pol
	s.kl += o.kl
	s.ent += o.ent
	s.clipLow += o.clipLow
	s.clipHigh += o.clipHigh
}

// lossRows is the loss kernel of one tile: for the rows tile rows starting at
// batch row r0, whose logits are the first NumActions columns of z (row
// stride ld), it writes ∂loss/∂z divided by the batch size into dz (same
// layout, padding columns zeroed) and adds the rows' loss terms to s. The
// formulas are those of LossAndGradRef, with the softmax shared between
// the three actions; they run in float64 whatever T is.
func lossRows[T Float](dz, z []T, ld int, b *Batch[T], r0, rows int, cfg LossConfig, invB float64, s *lossSums) {
	lo, hi := 1-cfg.EpsLow, 1+cfg.EpsHigh
	beta, cH := cfg.Beta, cfg.Entropy
	var acc lossSums
	for r := 0; r < rows; r++ {
		p0, p1, p2, l0, l1, l2 := softmax3(z[r*ld : r*ld+NumActions])

		i := r0 + r
		ref := b.RefLogp[i*NumActions : i*NumActions+NumActions]
		d0, d1, d2 := l0-float64(ref[0]), l1-float64(ref[1]), l2-float64(ref[2])
		kl := p0*d0 + p1*d1 + p2*d2
		ent := -(p0*l0 + p1*l1 + p2*l2)

		a := b.Actions[i]
		la := l0
		switch a {
		case 1:
			la = l1
		case 2:
			la = l2
		}
		adv := float64(b.Adv[i])
		raw := la - float64(b.BehLogp[i])
		rho := math.Exp(min(max(raw, -20), 20))
		u, v := rho*adv, min(max(rho, lo), hi)*adv
		inClip := rho >= lo && rho <= hi
		var dRho float64 // ∂L_clip/∂ρ, PyTorch's min and clamp
		switch {
		case u < v:
			dRho = -adv
		case u > v:
			if inClip {
				dRho = -adv
			}
		default:
			dRho = -adv / 2
			if inClip {
				dRho = -adv
			}
		}
		dLp := 0.0 // ∂L_clip/∂lp[a]
		if raw >= -20 && raw <= 20 {
			dLp = dRho * rho
		}

		g0 := beta*p0*(d0-kl) + cH*p0*(l0+ent) - dLp*p0
		g1 := beta*p1*(d1-kl) + cH*p1*(l1+ent) - dLp*p1
		g2 := beta*p2*(d2-kl) + cH*p2*(l2+ent) - dLp*p2
		putRowGrad(dz[r*ld:(r+1)*ld], g0, g1, g2, a, dLp, invB)

		pol := -min(u, v)
		acc.pol += pol
		acc.kl += kl
		acc.ent += ent
		acc.loss += pol + beta*kl - cH*ent
		if rho < lo && adv < 0 {
			acc.clipLow++
		}
		if rho > hi && adv > 0 {
			acc.clipHigh++
		}
	}
	s.add(acc)
}

// softmax3 and putRowGrad are unrolled for three actions (float64, one row
// in registers): this fails to build when NumActions changes, naming them.
var _ = [1]struct{}{}[NumActions-3]

// softmax3 returns the softmax p and log-softmax l of one row's three
// logits, in float64 whatever T is: the row maximum is subtracted before
// the exponentials, and l is z minus the log-sum-exp. lossRows and
// rankRows share it so that both losses see the same probabilities.
func softmax3[T Float](zr []T) (p0, p1, p2, l0, l1, l2 float64) {
	z0, z1, z2 := float64(zr[0]), float64(zr[1]), float64(zr[2])
	mx := max(z0, z1, z2)
	e0, e1, e2 := math.Exp(z0-mx), math.Exp(z1-mx), math.Exp(z2-mx)
	sum := e0 + e1 + e2
	lse := mx + math.Log(sum)
	inv := 1 / sum
	return e0 * inv, e1 * inv, e2 * inv, z0 - lse, z1 - lse, z2 - lse
}

// putRowGrad writes one row's ∂loss/∂z into dr: g plus dLp at the taken
// action a (the onehot term of ∂lp[a]/∂z), times invB, padding columns
// zeroed.
func putRowGrad[T Float](dr []T, g0, g1, g2 float64, a uint8, dLp, invB float64) {
	switch a {
	case 0:
		g0 += dLp
	case 1:
		g1 += dLp
	default:
		g2 += dLp
	}
	dr[0], dr[1], dr[2] = T(g0*invB), T(g1*invB), T(g2*invB)
	clear(dr[NumActions:])
}

// sftRows is the supervised loss kernel of one tile: cross-entropy
// −log softmax(z)[a] for out logits per row, its gradient (p − onehot(a))
// divided by the batch size written to dz, the losses added to s.loss.
func sftRows[T Float](dz, z []T, ld, out int, actions []uint8, r0, rows int, invB float64, s *lossSums) {
	loss := 0.0
	for r := 0; r < rows; r++ {
		zr := z[r*ld : r*ld+out]
		mx, sum := maxSumExp(zr)
		a := int(actions[r0+r])
		dr := dz[r*ld : (r+1)*ld]
		for j, v := range zr {
			g := math.Exp(float64(v)-mx) / sum
			if j == a {
				g-- // in float64: p_a − 1 keeps its digits when p_a ≈ 1
			}
			dr[j] = T(g * invB)
		}
		clear(dr[out:])
		loss += mx + math.Log(sum) - float64(zr[a])
	}
	s.loss += loss
}
