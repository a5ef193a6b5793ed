package autodiff

// Graphs and their cache.
//
// The graph is built feature-major: activations are (width × B), so layer l
// computes W_l·H + b_l with W_l in the [out, in] layout of nn.MLP.Params and
// no transpose. Every (kind, batch size) pair, kind being loss, sft or
// forward, gets its own graph, built and compiled into a TapeMachine on
// first use and kept until Close; the cache grows with the number of
// distinct batch sizes a caller uses. Each input node is bound once to a
// tensor backed by a slice the engine owns, and each output (loss parts, ρ,
// the per-layer gradients, the logits) is copied by a G.Read into another
// such slice. The one-hot action masks and the reference log-probabilities
// enter as one (B) vector per action. Gorgonia turns a row of a (3 × 1)
// matrix into a scalar, so a batch of one row runs on the two-row graph as
// two copies of the row, which leaves every mean and the gradient exactly
// as they are. A call therefore only copies the parameters and the batch into
// the input slices (transposing the features), runs the machine, resets it,
// and copies the results out. Gorgonia allocates intermediate values on
// every run; this package does not try to avoid that.

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/nn"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// kind says which outputs a compiled graph computes.
type kind uint8

const (
	kindLoss    kind = iota // SoftRankPO loss, its parts and gradient
	kindSFT                 // mean cross-entropy and gradient
	kindForward             // logits only
	kindCoef                // rank-match with given coefficients (nn.Batch.Coef)
)

func (k kind) String() string {
	switch k {
	case kindLoss:
		return "loss"
	case kindSFT:
		return "sft"
	case kindCoef:
		return "rank-match coefficients"
	}
	return "forward"
}

// minRows is the smallest batch a graph is built for. Gorgonia turns row a
// of a (NumActions × 1) matrix into a scalar, which the elementwise ops then
// reject, so a batch of one row runs as two copies of it. Every batch mean
// and the gradient are unchanged exactly: v+v = 2v and ½·2v = v in floating
// point, and scaling by ½ commutes with rounding.
const minRows = 2

// graphRows is the number of rows of the graph that serves a batch of B.
func graphRows(B int) int { return max(B, minRows) }

// key identifies a cached graph: its outputs and its batch size.
type key struct {
	kind  kind
	batch int
}

// graph is one compiled program for one batch size. Every input node is
// bound once, at build time, to a tensor backed by one of the buffers below;
// every output is read (G.Read) into a tensor backed by a buffer. A call
// fills the input buffers, runs the machine and reads the output buffers.
//
// The graph is feature-major: activations are (width × B), so layer l is
// W_l·H + b_l with W_l in the [out, in] layout of nn.MLP and no transpose,
// and the logits of action k are row k of the (NumActions × B) output.
type graph struct {
	g     *G.ExprGraph
	vm    G.VM
	batch int

	// inputs
	x        buffer   // in × B: the features, transposed
	w, b     []buffer // layer weights [out, in] and biases [out]
	attn     []buffer // the attention front's Wq, bq, Wk, bk, Wv, bv (attention.go)
	onehot   [nn.NumActions]buffer
	ref      [nn.NumActions]buffer // log π_ref(k|x), one buffer per action
	adv, beh buffer
	center   buffer // B×B (rank-match): row i averages row i's group

	// outputs
	logits buffer   // NumActions × B (kindForward)
	ratio  buffer   // B: ρ (kindLoss)
	gw, gb []buffer // dLoss/dW_l, dLoss/db_l
	gattn  []buffer // dLoss/d of the front's six tensors
	// scalars (kindLoss: all four; kindSFT: loss)
	loss, policy, kl, entropy G.Value
}

// builder carries what every node constructor needs.
type builder struct {
	g     *G.ExprGraph
	dt    tensor.Dtype
	batch int
}

// build constructs and compiles the graph of kind k for batch rows. Gorgonia
// reports many graph errors by panicking; they come back as an error.
func build(k kind, sizes []int, attn int, act nn.Activation, cfg nn.LossConfig, dt tensor.Dtype, batch int) (gr *graph, err error) {
	defer func() {
		if r := recover(); r != nil {
			gr, err = nil, fmt.Errorf("autodiff: building %s graph for batch %d: gorgonia panicked: %v", k, batch, r)
		}
	}()
	bl := &builder{g: G.NewGraph(), dt: dt, batch: batch}
	gr = &graph{g: bl.g, batch: batch}

	logits, params := bl.mlp(gr, sizes, attn, act)
	if k == kindForward {
		gr.logits = newBuffer(dt, nn.NumActions*batch)
		bl.readInto(logits, gr.logits, nn.NumActions, batch)
		return gr, gr.compile()
	}

	rows := make([]*G.Node, nn.NumActions)
	for a := range rows {
		rows[a] = G.Must(G.Slice(logits, G.S(a)))
	}
	logp := bl.logSoftmax(rows)

	// log π(a|x) gathered with the one-hot mask of the taken actions.
	var logpa *G.Node
	onehot := make([]*G.Node, len(logp))
	for a := range logp {
		gr.onehot[a] = newBuffer(dt, batch)
		t := bl.input(gr.onehot[a], fmt.Sprintf("onehot%d", a), batch)
		onehot[a] = t
		if term := bl.mul(t, logp[a]); logpa == nil {
			logpa = term
		} else {
			logpa = bl.add(logpa, term)
		}
	}

	var cost *G.Node
	if k == kindSFT {
		cost = G.Must(G.Neg(bl.mean(logpa)))
		G.Read(cost, &gr.loss)
	} else if k == kindCoef {
		cost = bl.rankCoef(gr, cfg, logp, logpa)
	} else if cfg.RankMatch() {
		cost = bl.rankMatch(gr, cfg, logp, onehot, logpa)
	} else {
		cost = bl.softRankPO(gr, cfg, logp, logpa)
	}

	grads, err := G.Grad(cost, params...)
	if err != nil {
		return nil, fmt.Errorf("autodiff: gradient of %s graph: %w", k, err)
	}
	for i, buf := range gr.attn {
		shape := nn.AttnTensorShape(attn, i)
		gr.gattn = append(gr.gattn, newBuffer(dt, buf.len()))
		bl.readInto(grads[i], gr.gattn[i], shape...)
	}
	grads = grads[len(gr.attn):]
	for l := range gr.w {
		in, out := sizes[l], sizes[l+1]
		gr.gw = append(gr.gw, newBuffer(dt, out*in))
		gr.gb = append(gr.gb, newBuffer(dt, out))
		bl.readInto(grads[2*l], gr.gw[l], out, in)
		bl.readInto(grads[2*l+1], gr.gb[l], out)
	}
	return gr, gr.compile()
}

// mlp adds the inputs x, W_l, b_l and the forward pass (after the
// attention front when attn > 0); it returns the (NumActions × B) logits
// and the parameter nodes in flat-layout order.
func (bl *builder) mlp(gr *graph, sizes []int, attn int, act nn.Activation) (*G.Node, G.Nodes) {
	var h *G.Node
	var params G.Nodes
	if attn > 0 {
		gr.x = newBuffer(bl.dt, nn.AttnIn*bl.batch)
		x := bl.input(gr.x, "x", nn.AttnIn, bl.batch)
		h, params = bl.attention(gr, x, attn)
	} else {
		gr.x = newBuffer(bl.dt, sizes[0]*bl.batch)
		h = bl.input(gr.x, "x", sizes[0], bl.batch)
	}
	for l := 0; l+1 < len(sizes); l++ {
		in, out := sizes[l], sizes[l+1]
		gr.w = append(gr.w, newBuffer(bl.dt, out*in))
		gr.b = append(gr.b, newBuffer(bl.dt, out))
		w := bl.input(gr.w[l], fmt.Sprintf("w%d", l), out, in)
		b := bl.input(gr.b[l], fmt.Sprintf("b%d", l), out)
		params = append(params, w, b)

		z := G.Must(G.Mul(w, h))                         // out × B
		z = G.Must(G.BroadcastAdd(z, b, nil, []byte{1})) // + b along the batch
		switch {
		case l+2 == len(sizes):
			h = z // linear output layer
		case act == nn.ReLU:
			h = bl.relu(z)
		default:
			h = G.Must(G.Tanh(z))
		}
	}
	return h, params
}

// attention adds the front of nn's attention network (nn/attention.go) on
// the feature-major rows x (AttnIn × B): it returns h0 = [x_s; c]
// ((AttnSelf+d) × B) and the six front parameter nodes. The masked softmax
// is written as α_j = m_j·e^{s_j} / (Σ_l m_l·e^{s_l} + Π_l (1 − m_l)), m_j
// the slot's present flag (0 or 1): absent slots weigh 0, and a row with no
// peer divides 0 by 1 (c = 0). It exponentiates the scores without
// subtracting their maximum, which nn does: the same function for scores
// below ~80 (float32), which a reference on test networks can afford.
func (bl *builder) attention(gr *graph, x *G.Node, d int) (*G.Node, G.Nodes) {
	var p G.Nodes
	for i, name := range []string{"wq", "bq", "wk", "bk", "wv", "bv"} {
		shape := nn.AttnTensorShape(d, i)
		n := 1
		for _, v := range shape {
			n *= v
		}
		gr.attn = append(gr.attn, newBuffer(bl.dt, n))
		p = append(p, bl.input(gr.attn[i], name, shape...))
	}
	linear := func(w, b, in *G.Node) *G.Node {
		return G.Must(G.BroadcastAdd(G.Must(G.Mul(w, in)), b, nil, []byte{1}))
	}
	xs := G.Must(G.Slice(x, G.S(0, nn.AttnSelf)))
	q := linear(p[0], p[1], xs)
	var sum, none, c *G.Node
	es := make([]*G.Node, nn.AttnSlots)
	vs := make([]*G.Node, nn.AttnSlots)
	one := bl.scalar(1)
	for j := range nn.AttnSlots {
		at := nn.AttnSelf + j*nn.AttnPeer
		pj := G.Must(G.Slice(x, G.S(at, at+nn.AttnPeer)))
		mj := G.Must(G.Slice(x, G.S(at)))
		kj := linear(p[2], p[3], pj)
		vs[j] = linear(p[4], p[5], pj)
		sj := bl.scale(G.Must(G.Sum(bl.mul(q, kj), 0)), 1/math.Sqrt(float64(d)))
		es[j] = bl.mul(mj, G.Must(G.Exp(sj)))
		absent := G.Must(G.Sub(one, mj))
		if j == 0 {
			sum, none = es[j], absent
		} else {
			sum, none = bl.add(sum, es[j]), bl.mul(none, absent)
		}
	}
	den := bl.add(sum, none)
	for j := range nn.AttnSlots {
		alpha := G.Must(G.HadamardDiv(es[j], den))
		term := G.Must(G.BroadcastHadamardProd(vs[j], alpha, nil, []byte{0}))
		if c == nil {
			c = term
		} else {
			c = bl.add(c, term)
		}
	}
	return G.Must(G.Concat(0, xs, c)), p
}

// softRankPO adds the loss of design §4 and the reads of its parts; it returns
// the scalar cost mean(L_clip + β·KL − c_H·H).
func (bl *builder) softRankPO(gr *graph, cfg nn.LossConfig, logp []*G.Node, logpa *G.Node) *G.Node {
	B := bl.batch
	gr.adv, gr.beh = newBuffer(bl.dt, B), newBuffer(bl.dt, B)
	adv := bl.input(gr.adv, "adv", B)
	beh := bl.input(gr.beh, "beh", B)

	// ℓ = clamp(log π(a|x) − b, −20, 20); ρ = exp(ℓ)
	ratio := G.Must(G.Exp(bl.clamp(bl.sub(logpa, beh), -20, 20)))
	gr.ratio = newBuffer(bl.dt, B)
	bl.readInto(ratio, gr.ratio, B)

	// L_clip = −min(ρ·A, clip(ρ, 1−ε_low, 1+ε_high)·A)
	unclipped := bl.mul(ratio, adv)
	clipped := bl.mul(bl.clamp(ratio, 1-cfg.EpsLow, 1+cfg.EpsHigh), adv)
	lclip := G.Must(G.Neg(bl.minimum(unclipped, clipped)))

	// KL = Σ_a π (log π − log π_ref);  −H = Σ_a π log π
	kl, negH, _ := bl.refTerms(gr, logp, nil)

	row := bl.add(lclip, bl.scale(kl, cfg.Beta))
	row = bl.add(row, bl.scale(negH, cfg.Entropy)) // −c_H·H = c_H·(−H)
	cost := bl.mean(row)

	G.Read(cost, &gr.loss)
	G.Read(bl.mean(lclip), &gr.policy)
	G.Read(bl.mean(kl), &gr.kl)
	G.Read(G.Must(G.Neg(bl.mean(negH))), &gr.entropy)
	return cost
}

// rankMatch adds the rank-matching loss of design §4 (nn.LossRankMatch) and
// the reads of its parts; it returns the scalar cost
// mean((h_c − A)²) − c_H·mean(H), with h = β·(log π(a|x) − log π_ref(a|x))
// and h_c = h − C·h, C the B×B group-averaging matrix (C_ij = 1/n_g when
// rows i and j are both in group g, else 0). The matrix product is O(B²),
// which a reference backend can afford; autograd then differentiates the
// centring as written.
func (bl *builder) rankMatch(gr *graph, cfg nn.LossConfig, logp, onehot []*G.Node, logpa *G.Node) *G.Node {
	B := bl.batch
	gr.adv, gr.center = newBuffer(bl.dt, B), newBuffer(bl.dt, B*B)
	adv := bl.input(gr.adv, "adv", B)
	center := bl.input(gr.center, "center", B, B)

	kl, negH, refa := bl.refTerms(gr, logp, onehot)
	h := bl.scale(bl.sub(logpa, refa), cfg.Beta)
	hc := bl.sub(h, G.Must(G.Mul(center, h)))
	resid := bl.sub(hc, adv)
	sq := bl.mul(resid, resid)
	cost := bl.mean(bl.add(sq, bl.scale(negH, cfg.Entropy))) // −c_H·H = c_H·(−H)

	G.Read(cost, &gr.loss)
	G.Read(bl.mean(sq), &gr.policy)
	G.Read(bl.mean(kl), &gr.kl)
	G.Read(G.Must(G.Neg(bl.mean(negH))), &gr.entropy)
	return cost
}

// rankCoef adds the rank-matching loss of a slice of a larger batch whose
// coefficients c_i = ∂(B'·loss)/∂log π(a_i|x_i) are given (nn.Batch.Coef,
// read into gr.adv): the cost mean(c ⊙ log π(a|x)) − c_H·mean(H), whose
// gradient, c held constant, is the slice's part of the whole batch's
// (divided by this batch's B). Its value is not the loss; the engine
// reports the KL, the entropy and −c_H·H.
func (bl *builder) rankCoef(gr *graph, cfg nn.LossConfig, logp []*G.Node, logpa *G.Node) *G.Node {
	B := bl.batch
	gr.adv = newBuffer(bl.dt, B)
	coef := bl.input(gr.adv, "coef", B)
	kl, negH, _ := bl.refTerms(gr, logp, nil)
	cost := bl.mean(bl.add(bl.mul(coef, logpa), bl.scale(negH, cfg.Entropy)))
	G.Read(bl.mean(kl), &gr.kl)
	G.Read(G.Must(G.Neg(bl.mean(negH))), &gr.entropy)
	return cost
}

// refTerms adds the reference policy's inputs (gr.ref, one per action)
// and the per-row sums over actions that both losses read: kl =
// Σ_a π (log π − log π_ref), negH = Σ_a π log π and, when onehot is given,
// refa = Σ_a onehot_a · log π_ref (the reference log-probability of the
// taken action; nil otherwise).
func (bl *builder) refTerms(gr *graph, logp, onehot []*G.Node) (kl, negH, refa *G.Node) {
	B := bl.batch
	for a := range logp {
		gr.ref[a] = newBuffer(bl.dt, B)
		ref := bl.input(gr.ref[a], fmt.Sprintf("ref%d", a), B)
		p := G.Must(G.Exp(logp[a]))
		k := bl.mul(p, bl.sub(logp[a], ref))
		e := bl.mul(p, logp[a])
		var r *G.Node
		if onehot != nil {
			r = bl.mul(onehot[a], ref)
		}
		if kl == nil {
			kl, negH, refa = k, e, r
		} else {
			kl, negH = bl.add(kl, k), bl.add(negH, e)
			if r != nil {
				refa = bl.add(refa, r)
			}
		}
	}
	return kl, negH, refa
}

// input adds an input node bound to a tensor backed by buf.
func (bl *builder) input(buf buffer, name string, shape ...int) *G.Node {
	opts := []G.NodeConsOpt{G.WithName(name), G.WithShape(shape...), G.WithValue(buf.tensor(shape...))}
	if len(shape) == 1 {
		return G.NewVector(bl.g, bl.dt, opts...)
	}
	return G.NewMatrix(bl.g, bl.dt, opts...)
}

// readInto makes every run copy n's value into buf.
func (bl *builder) readInto(n *G.Node, buf buffer, shape ...int) {
	v := G.Value(buf.tensor(shape...))
	G.Read(n, &v)
}

// compile makes the TapeMachine. NewTapeMachine panics when compilation
// fails; build's recover turns that into its error.
func (gr *graph) compile() error {
	gr.vm = G.NewTapeMachine(gr.g)
	return nil
}

// run executes the program once on the current input buffers.
func (gr *graph) run() (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("autodiff: gorgonia panicked: %v", r)
		}
	}()
	defer gr.vm.Reset()
	if err := gr.vm.RunAll(); err != nil {
		return fmt.Errorf("autodiff: run: %w", err)
	}
	return nil
}
