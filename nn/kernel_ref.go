package nn

import (
	"fmt"
	"math"
)

// The plain reference loops of the update step. They run one row at a time
// in float64 whatever T is, allocate freely, and are written to be read
// against design §4 rather than to be fast: the Workspace kernels are tested
// against them in every build.

// ForwardRef writes the logits of the B rows of x (B×In) into logits (B×Out).
func ForwardRef[T Float](logits []T, m *MLP[T], x []T) {
	in, out := m.In(), m.Out()
	if len(x)%in != 0 || len(logits) != len(x)/in*out {
		panic(fmt.Sprintf("nn: ForwardRef: len(x)=%d len(logits)=%d for widths %d→%d", len(x), len(logits), in, out))
	}
	if m.Attn > 0 {
		attnForwardTo(logits, newAttnNet(m), x)
		return
	}
	for r := 0; r < len(x)/in; r++ {
		acts := forwardRow(m, x[r*in:(r+1)*in])
		for j, v := range acts[len(acts)-1] {
			logits[r*out+j] = T(v)
		}
	}
}

// forwardRow returns the activations of every layer for one input row:
// acts[0] is the input, acts[Layers()] the logits.
func forwardRow[T Float](m *MLP[T], x []T) [][]float64 {
	acts := make([][]float64, m.Layers()+1)
	acts[0] = make([]float64, len(x))
	for k, v := range x {
		acts[0][k] = float64(v)
	}
	for l := 0; l < m.Layers(); l++ {
		w, b := m.Weight(l), m.Bias(l)
		in, out := m.Sizes[l], m.Sizes[l+1]
		h := make([]float64, out)
		for o := range h {
			s := float64(b[o])
			for k := 0; k < in; k++ {
				s += float64(w[o*in+k]) * acts[l][k]
			}
			if l < m.Layers()-1 {
				s = activate(m.Act, s)
			}
			h[o] = s
		}
		acts[l+1] = h
	}
	return acts
}

// backwardRow adds to g (flat, float64) the gradient of one row whose
// activations are acts and whose loss gradient with respect to the logits is
// dz.
func backwardRow[T Float](g []float64, m *MLP[T], acts [][]float64, dz []float64) {
	delta := dz
	for l := m.Layers() - 1; l >= 0; l-- {
		in, out := m.Sizes[l], m.Sizes[l+1]
		gw, gb := LayerWeight(m.Sizes, g, l), LayerBias(m.Sizes, g, l)
		h := acts[l]
		for o := 0; o < out; o++ {
			gb[o] += delta[o]
			for k := 0; k < in; k++ {
				gw[o*in+k] += delta[o] * h[k]
			}
		}
		if l == 0 {
			break
		}
		w := m.Weight(l)
		prev := make([]float64, in)
		for k := range prev {
			s := 0.0
			for o := 0; o < out; o++ {
				s += float64(w[o*in+k]) * delta[o]
			}
			// PyTorch's derivatives: tanh' = 1 − tanh², relu' = 1[relu(x) > 0].
			if m.Act == ReLU {
				if !(h[k] > 0) {
					s = 0
				}
			} else {
				s *= 1 - h[k]*h[k]
			}
			prev[k] = s
		}
		delta = prev
	}
}

// LossAndGradRef is the reference of Workspace.LossAndGrad: it writes the
// gradient of the design §4 loss (the batch mean) into grad and returns the
// batch statistics.
//
// Per row, with log-probabilities lp = log softmax(z) and p = exp(lp):
//
//	ℓ = clamp(lp[a] − b, −20, 20), ρ = eᶩ
//	L_clip = −min(ρA, clip(ρ, 1−ε_low, 1+ε_high)·A)
//	KL = Σ p (lp − lp_ref),  H = −Σ p·lp
//	loss = L_clip + β·KL − c_H·H
//
// Gradients follow PyTorch's autograd: clamp passes the gradient where its
// input lies in the closed interval, min gives it to the smaller argument and
// half to each on a tie.
//
// With cfg.Kind LossRankMatch it is the rank-matching loss instead
// (loss_rankmatch.go), which needs b.Group.
func LossAndGradRef[T Float](grad []T, m *MLP[T], b *Batch[T], cfg LossConfig) LossStats {
	checkLossArgs("LossAndGradRef", grad, m, b)
	if m.Attn > 0 { // one implementation of the attention network (attention.go)
		return AttnLossAndGrad(grad, m, b, cfg)
	}
	if cfg.RankMatch() {
		return rankMatchRef(grad, m, b, cfg)
	}
	n := b.Len()
	g := make([]float64, len(grad))
	var st LossStats
	lo, hi := 1-cfg.EpsLow, 1+cfg.EpsHigh
	for r := 0; r < n; r++ {
		acts := forwardRow(m, b.X[r*m.In():(r+1)*m.In()])
		z := acts[len(acts)-1]
		lp := make([]float64, NumActions)
		LogSoftmaxTo(lp, z)
		p := make([]float64, NumActions)
		for i := range p {
			p[i] = math.Exp(lp[i])
		}
		a := int(b.Actions[r])
		adv, beh := float64(b.Adv[r]), float64(b.BehLogp[r])
		ref := b.RefLogp[r*NumActions : (r+1)*NumActions]

		raw := lp[a] - beh
		ell := min(max(raw, -20), 20)
		rho := math.Exp(ell)
		clipped := min(max(rho, lo), hi)
		u, v := rho*adv, clipped*adv
		polLoss := -min(u, v)
		inClip := 0.0
		if rho >= lo && rho <= hi {
			inClip = 1
		}
		var dRho float64 // ∂L_clip/∂ρ
		switch {
		case u < v:
			dRho = -adv
		case u > v:
			dRho = -adv * inClip
		default:
			dRho = -(adv/2 + adv/2*inClip)
		}
		dLp := 0.0 // ∂L_clip/∂lp[a]
		if raw >= -20 && raw <= 20 {
			dLp = dRho * rho
		}
		kl, ent := 0.0, 0.0
		for i := range p {
			kl += p[i] * (lp[i] - float64(ref[i]))
			ent -= p[i] * lp[i]
		}
		dz := make([]float64, NumActions)
		for i := range dz {
			onehot := 0.0
			if i == a {
				onehot = 1
			}
			dz[i] = dLp*(onehot-p[i]) +
				cfg.Beta*p[i]*(lp[i]-float64(ref[i])-kl) +
				cfg.Entropy*p[i]*(lp[i]+ent)
			dz[i] /= float64(n)
		}
		backwardRow(g, m, acts, dz)

		st.PolicyLoss += polLoss
		st.KL += kl
		st.Entropy += ent
		st.Loss += polLoss + cfg.Beta*kl - cfg.Entropy*ent
		if rho < lo && adv < 0 {
			st.ClipLow++
		}
		if rho > hi && adv > 0 {
			st.ClipHigh++
		}
	}
	for i, v := range g {
		grad[i] = T(v)
	}
	fn := float64(n)
	st.Loss /= fn
	st.PolicyLoss /= fn
	st.KL /= fn
	st.Entropy /= fn
	st.ClipLow /= fn
	st.ClipHigh /= fn
	return st
}

// SFTLossAndGradRef is the reference of Workspace.SFTLossAndGrad: the mean
// cross-entropy −log π(a|x) over the rows of x, its gradient written to grad.
func SFTLossAndGradRef[T Float](grad []T, m *MLP[T], x []T, actions []uint8) float64 {
	checkSFTArgs("SFTLossAndGradRef", grad, m, x, actions)
	if m.Attn > 0 {
		return AttnSFTLossAndGrad(grad, m, x, actions)
	}
	n := len(actions)
	g := make([]float64, len(grad))
	loss := 0.0
	for r := 0; r < n; r++ {
		acts := forwardRow(m, x[r*m.In():(r+1)*m.In()])
		z := acts[len(acts)-1]
		lp := make([]float64, len(z))
		LogSoftmaxTo(lp, z)
		a := int(actions[r])
		loss -= lp[a]
		dz := make([]float64, len(z))
		for i := range dz {
			dz[i] = math.Exp(lp[i])
			if i == a {
				dz[i]--
			}
			dz[i] /= float64(n)
		}
		backwardRow(g, m, acts, dz)
	}
	for i, v := range g {
		grad[i] = T(v)
	}
	return loss / float64(n)
}

func checkLossArgs[T Float](op string, grad []T, m *MLP[T], b *Batch[T]) {
	n := b.Len()
	switch {
	case m.Out() != NumActions:
		panic(fmt.Sprintf("nn: %s: the policy has %d outputs, want %d", op, m.Out(), NumActions))
	case len(grad) != len(m.Params):
		panic(fmt.Sprintf("nn: %s: len(grad)=%d for %d parameters", op, len(grad), len(m.Params)))
	case n == 0:
		panic(fmt.Sprintf("nn: %s: empty batch", op))
	case len(b.X) != n*m.In() || len(b.Adv) != n || len(b.BehLogp) != n || len(b.RefLogp) != n*NumActions:
		panic(fmt.Sprintf("nn: %s: batch slices disagree with %d rows of width %d", op, n, m.In()))
	}
}

func checkSFTArgs[T Float](op string, grad []T, m *MLP[T], x []T, actions []uint8) {
	n := len(actions)
	switch {
	case len(grad) != len(m.Params):
		panic(fmt.Sprintf("nn: %s: len(grad)=%d for %d parameters", op, len(grad), len(m.Params)))
	case n == 0:
		panic(fmt.Sprintf("nn: %s: empty batch", op))
	case len(x) != n*m.In():
		panic(fmt.Sprintf("nn: %s: %d feature values for %d rows of width %d", op, len(x), n, m.In()))
	}
}
