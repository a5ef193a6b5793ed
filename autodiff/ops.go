package autodiff

// Numerics and non-smooth points.
//
// The log-softmax subtracts each row's largest logit before exponentiating,
// so logits in the thousands stay finite. log π(a|x) is gathered with a
// one-hot mask of the actions. The piecewise functions are built from
// comparison masks (Gorgonia does not differentiate a comparison), and their
// gradients follow PyTorch exactly, including at the points where the two
// disagree in general:
//
//	clamp(x, lo, hi)  gradient 1 where lo ≤ x ≤ hi, bounds included, else 0
//	                  (torch.clamp; used for ℓ and for the ratio clip)
//	min(x, y)         gradient to the smaller argument; on a tie x = y it is
//	                  split ½ and ½ (torch.minimum)
//	relu(x)           gradient 1[x > 0], so 0 at x = 0 (torch.relu)
//
// Inside the clip range ρ·A and clip(ρ)·A are equal and have equal
// gradients, so the half-and-half split gives the unclipped gradient, as in
// PyTorch. Gorgonia's own MinBetween (all of a tie to the first argument),
// Rectify (gradient 1 at 0), Max and LogSumExp are not used.

import (
	G "gorgonia.org/gorgonia"
)

// The helpers below build the piecewise functions of the loss from
// comparison masks. Gorgonia treats a comparison as a constant with respect
// to its inputs (it is not differentiated), so the gradient of each helper is
// exactly the mask written next to it. They panic on a graph error; build
// recovers that into an error.

// scalar returns a constant of the graph's dtype.
func (b *builder) scalar(v float64) *G.Node {
	if b.dt == G.Float32 {
		return G.NewConstant(float32(v))
	}
	return G.NewConstant(v)
}

func (b *builder) add(x, y *G.Node) *G.Node { return G.Must(G.Add(x, y)) }
func (b *builder) sub(x, y *G.Node) *G.Node { return G.Must(G.Sub(x, y)) }
func (b *builder) mul(x, y *G.Node) *G.Node { return G.Must(G.HadamardProd(x, y)) }
func (b *builder) scale(x *G.Node, c float64) *G.Node {
	return G.Must(G.HadamardProd(x, b.scalar(c)))
}

// mask comparisons return 1 where the relation holds and 0 elsewhere.
func (b *builder) lt(x, y *G.Node) *G.Node  { return G.Must(G.Lt(x, y, true)) }
func (b *builder) gt(x, y *G.Node) *G.Node  { return G.Must(G.Gt(x, y, true)) }
func (b *builder) gte(x, y *G.Node) *G.Node { return G.Must(G.Gte(x, y, true)) }
func (b *builder) lte(x, y *G.Node) *G.Node { return G.Must(G.Lte(x, y, true)) }
func (b *builder) eq(x, y *G.Node) *G.Node  { return G.Must(G.Eq(x, y, true)) }

// pick returns x where mask is 1 and y where it is 0: y + mask⊙(x − y).
// Gradient: mask to x, 1 − mask to y.
func (b *builder) pick(mask, x, y *G.Node) *G.Node {
	return b.add(y, b.mul(mask, b.sub(x, y)))
}

// minimum is torch.minimum: the elementwise smaller of x and y. The gradient
// goes to the smaller argument; on a tie it is split half and half, as
// PyTorch does (mask = 1[x<y] + ½·1[x=y]).
func (b *builder) minimum(x, y *G.Node) *G.Node {
	mask := b.add(b.lt(x, y), b.scale(b.eq(x, y), 0.5))
	return b.pick(mask, x, y)
}

// clamp is torch.clamp(x, lo, hi): the value is lo below lo, hi above hi,
// and x between; the gradient is 1 where lo ≤ x ≤ hi (bounds included, as in
// PyTorch) and 0 elsewhere.
func (b *builder) clamp(x *G.Node, lo, hi float64) *G.Node {
	l, h := b.scalar(lo), b.scalar(hi)
	inside := b.mul(b.gte(x, l), b.lte(x, h))
	out := b.mul(inside, x)
	out = b.add(out, b.mul(b.lt(x, l), l))
	return b.add(out, b.mul(b.gt(x, h), h))
}

// relu is max(x, 0) with PyTorch's gradient 1[x > 0] (0 at x = 0).
func (b *builder) relu(x *G.Node) *G.Node {
	return b.mul(b.gt(x, b.scalar(0)), x)
}

// logSoftmax returns log softmax over the actions, given one (B) node of
// logits per action. It subtracts the row maximum before exponentiating so
// that no exp overflows. The maximum is picked with masks; the result does
// not depend on it, and neither does the gradient in exact arithmetic (the
// shift's derivative −1 + Σ softmax is zero).
func (b *builder) logSoftmax(logits []*G.Node) []*G.Node {
	m := logits[0]
	for _, l := range logits[1:] {
		m = b.pick(b.gte(m, l), m, l)
	}
	z := make([]*G.Node, len(logits))
	var s *G.Node
	for k, l := range logits {
		z[k] = b.sub(l, m)
		e := G.Must(G.Exp(z[k]))
		if s == nil {
			s = e
		} else {
			s = b.add(s, e)
		}
	}
	lse := G.Must(G.Log(s))
	out := make([]*G.Node, len(logits))
	for k := range z {
		out[k] = b.sub(z[k], lse)
	}
	return out
}

// mean returns the mean of the (B) vector v as a scalar.
func (b *builder) mean(v *G.Node) *G.Node {
	return b.scale(G.Must(G.Sum(v)), 1/float64(b.batch))
}
