package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The attention front (design §4, attention over peers). An MLP with Attn = d > 0
// reads rows of AttnIn features, the peers-v1 layout of package metapolicy:
// the agent's own AttnSelf features x_s, then AttnSlots peer slots p_j of
// AttnPeer features whose first, present, is 1 for a slot holding a peer
// and 0 for an empty one. The front attends from self to the present peers
//
//	q = Wq·x_s + bq,  k_j = Wk·p_j + bk,  v_j = Wv·p_j + bv
//	α = softmax_{j present}(q·k_j/√d),  c = Σ_j α_j v_j  (0 with no peer)
//
// and the MLP layers (Sizes, Sizes[0] = AttnSelf + d) read [x_s, c]. The
// result does not depend on the order of the present slots nor on how many
// empty ones there are. Params holds the front first, in the order
// Wq, bq, Wk, bk, Wv, bv (each weight [d, in] row-major, as nn.Linear),
// then the layers as for a plain MLP.
const (
	AttnSelf  = 26                            // own features (metapolicy.FeatureWidth)
	AttnPeer  = 12                            // features of one peer slot
	AttnSlots = 7                             // peer slots (teams of up to 8)
	AttnIn    = AttnSelf + AttnSlots*AttnPeer // row width, 110
)

// AttnParams is the number of parameters of an attention front of width
// d (0 for d = 0, a plain MLP).
func AttnParams(d int) int { return d * (AttnSelf + 2*AttnPeer + 3) }

// ParamCount is the length of Params of a network with layer sizes and
// attention width attn (0: a plain MLP).
func ParamCount(sizes []int, attn int) (int, error) {
	n, err := NumParams(sizes)
	if err != nil || attn == 0 {
		return n, err
	}
	if attn < 0 {
		return 0, fmt.Errorf("nn: attention width %d, want > 0", attn)
	}
	if sizes[0] != AttnSelf+attn {
		return 0, fmt.Errorf("nn: attention width %d needs a first layer of %d inputs, not %d", attn, AttnSelf+attn, sizes[0])
	}
	return n + AttnParams(attn), nil
}

// NewAttention returns a network with an attention front of width d over
// the layers sizes (sizes[0] = AttnSelf + d), zero parameters.
func NewAttention[T Float](d int, sizes []int, act Activation) (*MLP[T], error) {
	if d <= 0 {
		return nil, fmt.Errorf("nn: attention width %d, want > 0", d)
	}
	m, err := NewMLP[T](sizes, act)
	if err != nil {
		return nil, err
	}
	n, err := ParamCount(sizes, d)
	if err != nil {
		return nil, err
	}
	m.Attn, m.Params = d, make([]T, n)
	return m, nil
}

// head is the layers' part of flat (laid out as Params).
func (m *MLP[T]) head(flat []T) []T { return flat[AttnParams(m.Attn):] }

// attnParts returns the six front tensors of flat (laid out as Params):
// Wq, bq, Wk, bk, Wv, bv.
func attnParts[T Float](d int, flat []T) [6][]T {
	var out [6][]T
	off := 0
	for i, n := range [6]int{d * AttnSelf, d, d * AttnPeer, d, d * AttnPeer, d} {
		out[i] = flat[off : off+n : off+n]
		off += n
	}
	return out
}

// AttnTensor returns the front tensor i of Params (0..5: Wq, bq, Wk, bk,
// Wv, bv), aliasing it.
func (m *MLP[T]) AttnTensor(i int) []T { return attnParts(m.Attn, m.Params)[i] }

// AttnTensorShape is the [out, in] shape of front tensor i ([d] for a bias).
func AttnTensorShape(d, i int) []int {
	switch i {
	case 0:
		return []int{d, AttnSelf}
	case 2, 4:
		return []int{d, AttnPeer}
	}
	return []int{d}
}

// initAttn draws the front as nn.Linear's default init does, weights and
// biases uniform in ±1/√fan_in, after the layers from the same stream.
func (m *MLP[T]) initAttn(rng *rand.Rand) {
	p := attnParts(m.Attn, m.Params)
	for i, fan := range [6]int{AttnSelf, AttnSelf, AttnPeer, AttnPeer, AttnPeer, AttnPeer} {
		bound := 1 / math.Sqrt(float64(fan))
		for j := range p[i] {
			p[i][j] = T((2*rng.Float64() - 1) * bound)
		}
	}
}

// attnRow is one row's state in float64: the front's (filled by
// attnFront) and the layers' activations (attnNet.forward), in slices of
// one block that a batch keeps per row for the gradient pass.
type attnRow struct {
	d       int
	q       []float64 // d
	k, v    []float64 // AttnSlots×d
	alpha   []float64 // AttnSlots
	present [AttnSlots]bool
	h0      []float64   // AttnSelf+d: [x_s, c]
	acts    [][]float64 // acts[0] = h0, acts[l+1] = layer l's output
}

// attnRowLen is the float64s of one row's block for layer sizes and width d.
func attnRowLen(sizes []int, d int) int {
	n := d + 2*AttnSlots*d + AttnSlots
	for _, w := range sizes {
		n += w // sizes[0] = AttnSelf+d is h0
	}
	return n
}

// bind points r's slices into block (attnRowLen values).
func (r *attnRow) bind(block []float64, sizes []int) {
	d := r.d
	take := func(n int) []float64 {
		out := block[:n:n]
		block = block[n:]
		return out
	}
	r.q, r.k, r.v, r.alpha = take(d), take(AttnSlots*d), take(AttnSlots*d), take(AttnSlots)
	if r.acts == nil {
		r.acts = make([][]float64, len(sizes))
	}
	for l, w := range sizes {
		r.acts[l] = take(w)
	}
	r.h0 = r.acts[0]
}

// attnFront computes the front of row x (AttnIn values) into s.h0, from
// the front's weights p (widened to float64).
func attnFront(s *attnRow, p *[6][]float64, x []float64) {
	d := s.d
	xs := x[:AttnSelf]
	for i := range d {
		acc := p[1][i]
		w := p[0][i*AttnSelf : (i+1)*AttnSelf]
		for k, xv := range xs {
			acc += w[k] * xv
		}
		s.q[i] = acc
	}
	copy(s.h0, xs)
	c := s.h0[AttnSelf:]
	clear(c)
	scale := 1 / math.Sqrt(float64(d))
	mx := math.Inf(-1)
	for j := range AttnSlots {
		pj := x[AttnSelf+j*AttnPeer : AttnSelf+(j+1)*AttnPeer]
		s.present[j] = pj[0] != 0
		s.alpha[j] = 0
		if !s.present[j] {
			continue
		}
		kj, vj := s.k[j*d:(j+1)*d], s.v[j*d:(j+1)*d]
		dot := 0.0
		for i := range d {
			ka, va := p[3][i], p[5][i]
			wk, wv := p[2][i*AttnPeer:(i+1)*AttnPeer], p[4][i*AttnPeer:(i+1)*AttnPeer]
			for k, pv := range pj {
				ka += wk[k] * pv
				va += wv[k] * pv
			}
			kj[i], vj[i] = ka, va
			dot += s.q[i] * ka
		}
		s.alpha[j] = dot * scale
		mx = max(mx, s.alpha[j])
	}
	sum := 0.0
	for j := range AttnSlots {
		if s.present[j] {
			s.alpha[j] = math.Exp(s.alpha[j] - mx)
			sum += s.alpha[j]
		}
	}
	for j := range AttnSlots {
		if !s.present[j] {
			continue
		}
		s.alpha[j] /= sum
		for i, vv := range s.v[j*d : (j+1)*d] {
			c[i] += s.alpha[j] * vv
		}
	}
}

// attnFrontBack adds to g (the front's six gradient tensors) the gradient of
// row x given dh0 = ∂loss/∂[x_s, c], after attnFront on the same row; dq
// is scratch (d values).
func attnFrontBack(s *attnRow, g *[6][]float64, x, dh0, dq []float64) {
	d := s.d
	dc := dh0[AttnSelf:]
	// ∂α_j = dc·v_j; ∂s_j = α_j(∂α_j − Σ_l α_l ∂α_l); ∂v_j = α_j dc.
	var da [AttnSlots]float64
	mean := 0.0
	for j := range AttnSlots {
		if !s.present[j] {
			continue
		}
		for i, vv := range s.v[j*d : (j+1)*d] {
			da[j] += dc[i] * vv
		}
		mean += s.alpha[j] * da[j]
	}
	scale := 1 / math.Sqrt(float64(d))
	clear(dq)
	for j := range AttnSlots {
		if !s.present[j] {
			continue
		}
		pj := x[AttnSelf+j*AttnPeer : AttnSelf+(j+1)*AttnPeer]
		ds := s.alpha[j] * (da[j] - mean) * scale
		kj := s.k[j*d : (j+1)*d]
		for i := range d {
			dq[i] += ds * kj[i]
			dk, dv := ds*s.q[i], s.alpha[j]*dc[i]
			g[3][i] += dk
			g[5][i] += dv
			gk, gv := g[2][i*AttnPeer:(i+1)*AttnPeer], g[4][i*AttnPeer:(i+1)*AttnPeer]
			for k, pv := range pj {
				gk[k] += dk * pv
				gv[k] += dv * pv
			}
		}
	}
	for i, dqi := range dq {
		g[1][i] += dqi
		gw := g[0][i*AttnSelf : (i+1)*AttnSelf]
		for k, xv := range x[:AttnSelf] {
			gw[k] += dqi * xv
		}
	}
}

// attnCacheRows is the most rows whose state a gradient pass keeps from
// its forward pass (~3.4 KB a row at the default shape); a larger batch
// runs the forward pass again, row by row, for the gradient.
const attnCacheRows = 4096

// attnNet runs rows through an attention network in float64 whatever T is,
// its parameters widened once (exactly: a float32 is a float64): the one
// implementation of decision time (Logits), of the batched forward pass
// and of the gradient.
type attnNet[T Float] struct {
	m      *MLP[T]
	w      []float64    // Params, widened
	p      [6][]float64 // the front's tensors of w
	lw, lb [][]float64  // each layer's weights and biases of w
	row    attnRow
	x      []float64 // AttnIn
	blocks []float64 // the rows' state, when kept (cache)
	rowLen int
	delta  []float64
	prev   []float64
	dh0    []float64
	dq     []float64
}

func newAttnNet[T Float](m *MLP[T]) *attnNet[T] {
	a := &attnNet[T]{m: m, w: make([]float64, len(m.Params)), x: make([]float64, AttnIn)}
	for i, v := range m.Params {
		a.w[i] = float64(v)
	}
	a.p = attnParts(m.Attn, a.w)
	head := a.w[AttnParams(m.Attn):]
	for l := range m.Layers() {
		a.lw = append(a.lw, LayerWeight(m.Sizes, head, l))
		a.lb = append(a.lb, LayerBias(m.Sizes, head, l))
	}
	a.row.d, a.rowLen = m.Attn, attnRowLen(m.Sizes, m.Attn)
	widest := slicesMax(m.Sizes)
	a.delta, a.prev, a.dh0, a.dq = make([]float64, widest), make([]float64, widest), make([]float64, m.Sizes[0]), make([]float64, m.Attn)
	return a
}

func slicesMax(s []int) int {
	m := s[0]
	for _, v := range s[1:] {
		m = max(m, v)
	}
	return m
}

// keep makes the next rows' state stay, rows of it, for backward.
func (a *attnNet[T]) keep(rows int) {
	if rows <= attnCacheRows {
		a.blocks = make([]float64, rows*a.rowLen)
	}
}

// at binds the row state to row r's block (kept), or to a scratch block.
func (a *attnNet[T]) at(r int) {
	if a.blocks != nil {
		a.row.bind(a.blocks[r*a.rowLen:(r+1)*a.rowLen], a.m.Sizes)
	} else if a.row.q == nil {
		a.row.bind(make([]float64, a.rowLen), a.m.Sizes)
	}
}

// forward returns the logits of row x (float64, aliasing the row state)
// into the state bound by at.
func (a *attnNet[T]) forward(x []T) []float64 {
	for k, v := range x {
		a.x[k] = float64(v)
	}
	attnFront(&a.row, &a.p, a.x)
	m := a.m
	acts := a.row.acts
	for l := 0; l < m.Layers(); l++ {
		w, b := a.lw[l], a.lb[l]
		in := m.Sizes[l]
		h, next := acts[l], acts[l+1]
		for o := range next {
			s := b[o]
			for k, wv := range w[o*in : (o+1)*in] {
				s += wv * h[k]
			}
			if l < m.Layers()-1 {
				s = activate(m.Act, s)
			}
			next[o] = s
		}
	}
	return acts[m.Layers()]
}

// backward adds to g (float64, laid out as Params) the gradient of row x,
// whose state is bound (at) and filled (forward), given dz = ∂loss/∂logits.
func (a *attnNet[T]) backward(g []float64, x []T, dz []float64) {
	m := a.m
	for k, v := range x {
		a.x[k] = float64(v)
	}
	for j := range AttnSlots { // the one part of the state not in the block
		a.row.present[j] = a.x[AttnSelf+j*AttnPeer] != 0
	}
	gh := g[AttnParams(m.Attn):]
	delta := append(a.delta[:0], dz...)
	for l := m.Layers() - 1; l >= 0; l-- {
		in, out := m.Sizes[l], m.Sizes[l+1]
		gw, gb := LayerWeight(m.Sizes, gh, l), LayerBias(m.Sizes, gh, l)
		h, w := a.row.acts[l], a.lw[l]
		prev := a.prev[:in]
		clear(prev)
		for o := 0; o < out; o++ {
			dv := delta[o]
			gb[o] += dv
			row := gw[o*in : (o+1)*in]
			for k, hv := range h {
				row[k] += dv * hv
			}
			for k, wv := range w[o*in : (o+1)*in] {
				prev[k] += wv * dv
			}
		}
		if l == 0 {
			copy(a.dh0, prev)
			break
		}
		for k := range prev {
			// PyTorch's derivatives: tanh' = 1 − tanh², relu' = 1[relu(x) > 0].
			if m.Act == ReLU {
				if !(h[k] > 0) {
					prev[k] = 0
				}
			} else {
				prev[k] *= 1 - h[k]*h[k]
			}
		}
		delta = append(delta[:0], prev...)
	}
	gp := attnParts(m.Attn, g)
	attnFrontBack(&a.row, &gp, a.x, a.dh0, a.dq)
}

// attnLogits is Logits for an attention network.
func (m *MLP[T]) attnLogits(dst, x []T) {
	a := newAttnNet(m)
	a.at(0)
	for i, v := range a.forward(x) {
		dst[i] = T(v)
	}
}

// attnForwardTo writes the logits of the rows of x (B×AttnIn) into logits
// (B×Out): Logits row by row, bit for bit. With a.keep, the rows' state
// stays for attnBackward.
func attnForwardTo[T Float](logits []T, a *attnNet[T], x []T) {
	m := a.m
	in, out := m.In(), m.Out()
	if len(x)%in != 0 || len(logits) != len(x)/in*out {
		panic(fmt.Sprintf("nn: attention forward: len(x)=%d len(logits)=%d for widths %d→%d", len(x), len(logits), in, out))
	}
	for r := range len(x) / in {
		a.at(r)
		for i, v := range a.forward(x[r*in : (r+1)*in]) {
			logits[r*out+i] = T(v)
		}
	}
}

// AttnLossAndGrad is Workspace.LossAndGrad (and LossAndGradRef) for an
// attention network: the same loss, from the same loss kernels (lossRows,
// or rankMatchCoef and rankRows), on logits computed row by row by the
// plain Go loops above, then each row's gradient, summed in row order. It
// runs on the calling goroutine.
func AttnLossAndGrad[T Float](grad []T, m *MLP[T], b *Batch[T], cfg LossConfig) LossStats {
	checkLossArgs("AttnLossAndGrad", grad, m, b)
	n := b.Len()
	z := make([]T, n*NumActions)
	dz := make([]T, n*NumActions)
	a := newAttnNet(m)
	a.keep(n)
	attnForwardTo(z, a, b.X)
	invB := 1 / float64(n)
	var sums lossSums
	var sq float64
	if cfg.RankMatch() {
		checkGroups("AttnLossAndGrad", b)
		coef := b.Coef // given: sq is the caller's
		if coef == nil {
			lpa := make([]float64, n)
			coef = make([]float64, n)
			for i := range lpa {
				zr := z[i*NumActions : (i+1)*NumActions]
				mx, s := maxSumExp(zr)
				lpa[i] = float64(zr[b.Actions[i]]) - (mx + math.Log(s))
			}
			sq = rankMatchCoef(coef, lpa, b, cfg.Beta, &rankScratch{})
		}
		rankRows(dz, z, NumActions, b, coef, 0, n, cfg, invB, &sums)
	} else {
		lossRows(dz, z, NumActions, b, 0, n, cfg, invB, &sums)
	}
	attnBackward(grad, a, b.X, dz)
	fn := float64(n)
	if cfg.RankMatch() {
		st := LossStats{PolicyLoss: sq / fn, KL: sums.kl / fn, Entropy: sums.ent / fn}
		st.Loss = st.PolicyLoss - cfg.Entropy*st.Entropy
		return st
	}
	return LossStats{Loss: sums.loss / fn, PolicyLoss: sums.pol / fn, KL: sums.kl / fn, Entropy: sums.ent / fn,
		ClipLow: float64(sums.clipLow) / fn, ClipHigh: float64(sums.clipHigh) / fn}
}

// AttnSFTLossAndGrad is Workspace.SFTLossAndGrad for an attention network.
func AttnSFTLossAndGrad[T Float](grad []T, m *MLP[T], x []T, actions []uint8) float64 {
	checkSFTArgs("AttnSFTLossAndGrad", grad, m, x, actions)
	n := len(actions)
	z := make([]T, n*NumActions)
	dz := make([]T, n*NumActions)
	a := newAttnNet(m)
	a.keep(n)
	attnForwardTo(z, a, x)
	var sums lossSums
	sftRows(dz, z, NumActions, NumActions, actions, 0, n, 1/float64(n), &sums)
	attnBackward(grad, a, x, dz)
	return sums.loss / float64(n)
}

// attnBackward writes into grad the gradient of the rows of x given their
// ∂loss/∂logits dz, summed in row order in float64; the rows' state is
// a's kept one, or computed again row by row.
func attnBackward[T Float](grad []T, a *attnNet[T], x, dz []T) {
	g := make([]float64, len(grad))
	d := make([]float64, NumActions)
	in := a.m.In()
	for r := range len(x) / in {
		a.at(r)
		row := x[r*in : (r+1)*in]
		if a.blocks == nil {
			a.forward(row)
		}
		for i := range d {
			d[i] = float64(dz[r*NumActions+i])
		}
		a.backward(g, row, d)
	}
	for i, v := range g {
		grad[i] = T(v)
	}
}
