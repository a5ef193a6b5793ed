package autodiff

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/mpdf/mpdf/nn"
)

// This file holds an independent plain-Go float64 computation of design §4,
// written from the formulas and sharing no code with the graph, and the
// batch generators of the tests.

// refLogits is the MLP forward pass for one row, straight from the flat
// layout described in nn's package doc.
func refLogits(sizes []int, act nn.Activation, params []float64, x []float64) []float64 {
	h := append([]float64(nil), x...)
	off := 0
	for l := 0; l+1 < len(sizes); l++ {
		in, out := sizes[l], sizes[l+1]
		w, b := params[off:off+out*in], params[off+out*in:off+out*in+out]
		off += out*in + out
		z := make([]float64, out)
		for o := range out {
			s := b[o]
			for k := range in {
				s += w[o*in+k] * h[k]
			}
			if l+2 < len(sizes) {
				if act == nn.ReLU {
					s = math.Max(s, 0)
				} else {
					s = math.Tanh(s)
				}
			}
			z[o] = s
		}
		h = z
	}
	return h
}

// refLogSoftmax is log softmax with the maximum subtracted first.
func refLogSoftmax(l []float64) []float64 {
	m := l[0]
	for _, v := range l {
		m = math.Max(m, v)
	}
	s := 0.0
	for _, v := range l {
		s += math.Exp(v - m)
	}
	out := make([]float64, len(l))
	for i, v := range l {
		out[i] = v - m - math.Log(s)
	}
	return out
}

// refLoss evaluates the SoftRankPO loss of design §4 and its parts.
func refLoss(sizes []int, act nn.Activation, cfg nn.LossConfig, params []float64, b *nn.Batch[float64]) nn.LossStats {
	var st nn.LossStats
	in, B := sizes[0], b.Len()
	for i := range B {
		logp := refLogSoftmax(refLogits(sizes, act, params, b.X[i*in:(i+1)*in]))
		a, A := b.Actions[i], b.Adv[i]
		ell := math.Min(math.Max(logp[a]-b.BehLogp[i], -20), 20)
		rho := math.Exp(ell)
		clipped := math.Min(math.Max(rho, 1-cfg.EpsLow), 1+cfg.EpsHigh)
		lclip := -math.Min(rho*A, clipped*A)
		kl, ent := 0.0, 0.0
		for k := range nn.NumActions {
			p := math.Exp(logp[k])
			kl += p * (logp[k] - b.RefLogp[i*nn.NumActions+k])
			ent -= p * logp[k]
		}
		st.PolicyLoss += lclip
		st.KL += kl
		st.Entropy += ent
		st.Loss += lclip + cfg.Beta*kl - cfg.Entropy*ent
		if rho < 1-cfg.EpsLow && A < 0 {
			st.ClipLow++
		}
		if rho > 1+cfg.EpsHigh && A > 0 {
			st.ClipHigh++
		}
	}
	n := float64(B)
	st.Loss /= n
	st.PolicyLoss /= n
	st.KL /= n
	st.Entropy /= n
	st.ClipLow /= n
	st.ClipHigh /= n
	return st
}

// refSFT is the mean of −log π(a|x).
func refSFT(sizes []int, act nn.Activation, params, x []float64, actions []uint8) float64 {
	in, s := sizes[0], 0.0
	for i, a := range actions {
		s -= refLogSoftmax(refLogits(sizes, act, params, x[i*in:(i+1)*in]))[a]
	}
	return s / float64(len(actions))
}

// testLoss has separate clip bounds and non-zero KL and entropy weights so
// that every term of the loss reaches the gradient.
var testLoss = nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.1, Entropy: 0.05}

// randomModel returns an MLP with parameters drawn from seed.
func randomModel(sizes []int, act nn.Activation, seed uint64) *nn.MLP[float64] {
	m, err := nn.NewMLP[float64](sizes, act)
	if err != nil {
		panic(err)
	}
	m.Init(seed)
	// Larger than PyTorch's default scale so that the policy is far from
	// uniform and the KL and entropy terms have sizeable gradients.
	for i := range m.Params {
		m.Params[i] *= 2
	}
	return m
}

// randomBatch draws B rows for m. The behaviour log-probabilities are set
// from the current policy so that the log-ratio δ = log π(a|x) − b of each
// row is known, with the first rows pinned so that every branch of the loss
// is active: ρ above 1+ε_high with A > 0 (clipped high), ρ below 1−ε_low
// with A < 0 (clipped low), ℓ clamped at +20 and at −20, ratio above 1+ε_high
// with A < 0 and below 1−ε_low with A > 0 (unclipped branch wins). No row has
// ℓ clamped at +20 with A < 0: its loss term, about 5e8, would swamp the
// finite differences (the clamp's gradient is tested in ops_test.go). Random
// rows keep δ away from the kinks of the loss (at least 0.03 in log space) so
// that finite differences do not straddle one.
func randomBatch(m *nn.MLP[float64], cfg nn.LossConfig, B int, seed uint64) *nn.Batch[float64] {
	rng := rand.New(rand.NewPCG(seed, 7))
	in := m.In()
	b := &nn.Batch[float64]{
		X:       make([]float64, B*in),
		Actions: make([]uint8, B),
		Adv:     make([]float64, B),
		BehLogp: make([]float64, B),
		RefLogp: make([]float64, B*nn.NumActions),
	}
	kinks := []float64{math.Log(1 - cfg.EpsLow), math.Log(1 + cfg.EpsHigh), 0}
	pinned := []struct{ delta, sign float64 }{
		{0.6, 1}, {-0.6, -1}, {25, 1}, {-25, -1}, {0.6, -1}, {-0.6, 1}, {-25, 1},
	}
	for i := range B {
		for k := range in {
			b.X[i*in+k] = rng.NormFloat64()
		}
		b.Actions[i] = uint8(rng.IntN(nn.NumActions))
		b.Adv[i] = rng.NormFloat64()
		var delta float64
		if i < len(pinned) {
			delta = pinned[i].delta
			b.Adv[i] = pinned[i].sign * (0.5 + math.Abs(b.Adv[i]))
		} else {
		draw:
			delta = 1.6*rng.Float64() - 0.8
			for _, k := range kinks {
				if math.Abs(delta-k) < 0.03 {
					goto draw
				}
			}
		}
		logp := refLogSoftmax(refLogits(m.Sizes, m.Act, m.Params, b.X[i*in:(i+1)*in]))
		b.BehLogp[i] = logp[b.Actions[i]] - delta
		// A reference policy near the current one but not equal to it.
		ref := make([]float64, nn.NumActions)
		for k := range ref {
			ref[k] = logp[k] + 0.7*rng.NormFloat64()
		}
		copy(b.RefLogp[i*nn.NumActions:], refLogSoftmax(ref))
	}
	return b
}

// convertBatch returns b with every value converted to U.
func convertBatch[U, T nn.Float](b *nn.Batch[T]) *nn.Batch[U] {
	conv := func(s []T) []U {
		out := make([]U, len(s))
		for i, v := range s {
			out[i] = U(v)
		}
		return out
	}
	return &nn.Batch[U]{
		X: conv(b.X), Actions: append([]uint8(nil), b.Actions...),
		Adv: conv(b.Adv), BehLogp: conv(b.BehLogp), RefLogp: conv(b.RefLogp),
		Group: slices.Clone(b.Group),
	}
}
