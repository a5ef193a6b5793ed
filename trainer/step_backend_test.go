package trainer

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// refBackend is a test-only Backend: design §4's loss and its gradient in plain
// float64 loops (forward, loss, hand-derived backward), checked against
// finite differences below. It shares no code with the package.
type refBackend struct {
	cfg nn.LossConfig
}

// net is a float64 MLP evaluation with the activations kept for backward.
type net struct {
	sizes  []int
	act    nn.Activation
	params []float64
}

func (n net) weight(l int) []float64 { return nn.LayerWeight(n.sizes, n.params, l) }
func (n net) bias(l int) []float64   { return nn.LayerBias(n.sizes, n.params, l) }

// forward returns the activations of every layer; hs[0] = x, hs[L] = logits.
func (n net) forward(x []float64) [][]float64 {
	hs := [][]float64{x}
	L := len(n.sizes) - 1
	for l := range L {
		in, out := n.sizes[l], n.sizes[l+1]
		w, b := n.weight(l), n.bias(l)
		h := make([]float64, out)
		for o := range out {
			s := b[o]
			for k := range in {
				s += w[o*in+k] * hs[l][k]
			}
			if l < L-1 {
				if n.act == nn.ReLU {
					s = max(s, 0)
				} else {
					s = math.Tanh(s)
				}
			}
			h[o] = s
		}
		hs = append(hs, h)
	}
	return hs
}

// backward accumulates into grad the gradient for dlogits at activations hs.
func (n net) backward(grad []float64, hs [][]float64, dlogits []float64) {
	L := len(n.sizes) - 1
	delta := append([]float64(nil), dlogits...)
	for l := L - 1; l >= 0; l-- {
		in, out := n.sizes[l], n.sizes[l+1]
		w := n.weight(l)
		gw, gb := nn.LayerWeight(n.sizes, grad, l), nn.LayerBias(n.sizes, grad, l)
		prev := make([]float64, in)
		for o := range out {
			gb[o] += delta[o]
			for k := range in {
				gw[o*in+k] += delta[o] * hs[l][k]
				prev[k] += w[o*in+k] * delta[o]
			}
		}
		if l > 0 {
			for k := range in {
				h := hs[l][k]
				if n.act == nn.ReLU {
					if h <= 0 {
						prev[k] = 0
					}
				} else {
					prev[k] *= 1 - h*h
				}
			}
		}
		delta = prev
	}
}

func logSoftmax(z []float64) []float64 {
	mx := math.Inf(-1)
	for _, v := range z {
		mx = max(mx, v)
	}
	s := 0.0
	for _, v := range z {
		s += math.Exp(v - mx)
	}
	out := make([]float64, len(z))
	for i, v := range z {
		out[i] = v - mx - math.Log(s)
	}
	return out
}

func row64(x []float32, i, F int) []float64 {
	r := make([]float64, F)
	for k := range r {
		r[k] = float64(x[i*F+k])
	}
	return r
}

// loss64 is design §4's loss of batch b at params, and (when grad != nil) its
// gradient.
func (rb refBackend) loss64(grad []float64, n net, b *nn.Batch[float32]) nn.LossStats {
	var st nn.LossStats
	B, F := b.Len(), n.sizes[0]
	lo, hi := 1-rb.cfg.EpsLow, 1+rb.cfg.EpsHigh
	for i := range B {
		hs := n.forward(row64(b.X, i, F))
		lp := logSoftmax(hs[len(hs)-1])
		a, A := int(b.Actions[i]), float64(b.Adv[i])
		ell := lp[a] - float64(b.BehLogp[i])
		ellc := min(max(ell, -20), 20)
		rho := math.Exp(ellc)
		unclipped, clipped := rho*A, min(max(rho, lo), hi)*A
		lclip := -min(unclipped, clipped)
		// d lclip / d log π(a): −ρA where the minimum follows ρ, else 0;
		// 0 too where ℓ is clamped.
		dell := 0.0
		if (unclipped <= clipped || (rho >= lo && rho <= hi)) && ell > -20 && ell < 20 {
			dell = -rho * A
		}
		if rho < lo && A < 0 {
			st.ClipLow++
		}
		if rho > hi && A > 0 {
			st.ClipHigh++
		}
		kl, ent := 0.0, 0.0
		for k := range lp {
			p := math.Exp(lp[k])
			kl += p * (lp[k] - float64(b.RefLogp[i*3+k]))
			ent -= p * lp[k]
		}
		st.PolicyLoss += lclip
		st.KL += kl
		st.Entropy += ent
		st.Loss += lclip + rb.cfg.Beta*kl - rb.cfg.Entropy*ent
		if grad == nil {
			continue
		}
		dz := make([]float64, 3)
		for k := range lp {
			p := math.Exp(lp[k])
			oh := 0.0
			if k == a {
				oh = 1
			}
			dz[k] = dell*(oh-p) +
				rb.cfg.Beta*p*(lp[k]-float64(b.RefLogp[i*3+k])-kl) +
				rb.cfg.Entropy*p*(lp[k]+ent)
			dz[k] /= float64(B)
		}
		n.backward(grad, hs, dz)
	}
	fb := float64(B)
	st.Loss, st.PolicyLoss, st.KL, st.Entropy = st.Loss/fb, st.PolicyLoss/fb, st.KL/fb, st.Entropy/fb
	st.ClipLow, st.ClipHigh = st.ClipLow/fb, st.ClipHigh/fb
	return st
}

func toNet(m *nn.MLP[float32]) net {
	p := make([]float64, len(m.Params))
	for i, v := range m.Params {
		p[i] = float64(v)
	}
	return net{m.Sizes, m.Act, p}
}

func (rb refBackend) LossAndGrad(grad []float32, m *nn.MLP[float32], b *nn.Batch[float32]) (nn.LossStats, error) {
	if err := b.Check(m.In()); err != nil {
		return nn.LossStats{}, err
	}
	g := make([]float64, len(m.Params))
	st := rb.loss64(g, toNet(m), b)
	for i, v := range g {
		grad[i] = float32(v)
	}
	return st, nil
}

func (rb refBackend) sft64(grad []float64, n net, x []float32, actions []uint8) float64 {
	B, F := len(actions), n.sizes[0]
	loss := 0.0
	for i, a := range actions {
		hs := n.forward(row64(x, i, F))
		lp := logSoftmax(hs[len(hs)-1])
		loss -= lp[a]
		if grad != nil {
			dz := make([]float64, 3)
			for k := range dz {
				dz[k] = math.Exp(lp[k]) / float64(B)
			}
			dz[a] -= 1 / float64(B)
			n.backward(grad, hs, dz)
		}
	}
	return loss / float64(B)
}

func (rb refBackend) SFTLossAndGrad(grad []float32, m *nn.MLP[float32], x []float32, actions []uint8) (float64, error) {
	g := make([]float64, len(m.Params))
	loss := rb.sft64(g, toNet(m), x, actions)
	for i, v := range g {
		grad[i] = float32(v)
	}
	return loss, nil
}

var _ Backend = refBackend{}

// testBatch draws a batch whose behaviour log-probs put ρ on both sides of
// both clip bounds, plus one row with ℓ clamped at −20.
func testBatch(rng *rand.Rand, m *nn.MLP[float32], B int) *nn.Batch[float32] {
	F := m.In()
	b := &nn.Batch[float32]{
		X: make([]float32, B*F), Actions: make([]uint8, B), Adv: make([]float32, B),
		BehLogp: make([]float32, B), RefLogp: make([]float32, B*3),
	}
	ref := m.Clone()
	for i := range ref.Params {
		ref.Params[i] += float32(0.3 * rng.NormFloat64())
	}
	logits, lp := make([]float32, 3), make([]float32, 3)
	for i := range B {
		x := b.X[i*F : (i+1)*F]
		for k := range x {
			x[k] = float32(rng.NormFloat64())
		}
		b.Actions[i] = uint8(rng.IntN(3))
		b.Adv[i] = float32(rng.NormFloat64())
		m.Logits(logits, x)
		nn.LogSoftmaxTo(lp, logits)
		b.BehLogp[i] = lp[b.Actions[i]] - float32(rng.Float64()*0.8-0.4)
		ref.Logits(logits, x)
		nn.LogSoftmaxTo(b.RefLogp[i*3:(i+1)*3], logits)
	}
	// ℓ < −20 with A > 0: the unclipped term is the minimum, yet ℓ is clamped,
	// so this row adds no policy gradient. (With ℓ > 20 and A < 0 the loss is
	// −e²⁰A, too large for finite differences in float64.)
	b.BehLogp[0], b.Adv[0] = 25, 1
	return b
}

func testMLP(t testing.TB, sizes []int, act nn.Activation, seed uint64) *nn.MLP[float32] {
	m, err := nn.NewMLP[float32](sizes, act)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(seed)
	return m
}

// The reference backend's gradients against central finite differences in
// float64, for tanh and relu, with clipping, KL and entropy all active.
func TestRefBackendFiniteDifferences(t *testing.T) {
	cfg := nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: 0.3, Entropy: 0.1}
	rb := refBackend{cfg}
	for _, act := range []nn.Activation{nn.Tanh, nn.ReLU} {
		rng := rand.New(rand.NewPCG(11, uint64(act)))
		m := testMLP(t, []int{5, 7, 6, 3}, act, 3)
		b := testBatch(rng, m, 24)
		n := toNet(m)
		g := make([]float64, len(n.params))
		st := rb.loss64(g, n, b)
		if st.ClipLow == 0 || st.ClipHigh == 0 {
			t.Fatalf("%v: clip ratios %v, %v: the batch does not exercise both clips", act, st.ClipLow, st.ClipHigh)
		}
		sg := make([]float64, len(n.params))
		rb.sft64(sg, n, b.X, b.Actions)
		const h = 1e-6
		for i := range n.params {
			p := n.params[i]
			n.params[i] = p + h
			up, sup := rb.loss64(nil, n, b).Loss, rb.sft64(nil, n, b.X, b.Actions)
			n.params[i] = p - h
			dn, sdn := rb.loss64(nil, n, b).Loss, rb.sft64(nil, n, b.X, b.Actions)
			n.params[i] = p
			if fd := (up - dn) / (2 * h); math.Abs(fd-g[i]) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("%v: loss gradient[%d] = %.10g, finite difference %.10g", act, i, g[i], fd)
			}
			if fd := (sup - sdn) / (2 * h); math.Abs(fd-sg[i]) > 1e-6*(1+math.Abs(fd)) {
				t.Errorf("%v: SFT gradient[%d] = %.10g, finite difference %.10g", act, i, sg[i], fd)
			}
		}
	}
}

// Where ℓ is clamped (here ℓ > 20 with A < 0, the loss is −e²⁰A) the loss
// is flat: no gradient at all with β = c_H = 0.
func TestRefBackendClamp(t *testing.T) {
	rb := refBackend{nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.2}}
	m := testMLP(t, []int{4, 5, 3}, nn.Tanh, 5)
	b := testBatch(rand.New(rand.NewPCG(1, 2)), m, 1)
	b.BehLogp[0], b.Adv[0] = -30, -1
	g := make([]float64, len(m.Params))
	st := rb.loss64(g, toNet(m), b)
	if math.Abs(st.Loss-math.Exp(20)) > 1e-3*math.Exp(20) {
		t.Errorf("loss %v, want e²⁰", st.Loss)
	}
	for i, v := range g {
		if v != 0 {
			t.Fatalf("gradient[%d] = %v in the clamped region", i, v)
		}
	}
}

// A rank-match backend refuses a batch without group indices with an
// error (CheckShape has checked the indices it is given).
func TestKernelBackendRankMatchNeedsGroups(t *testing.T) {
	loss := nn.DefaultLoss()
	loss.Kind = nn.LossRankMatch
	m, err := nn.NewMLP[float32]([]int{2, 4, nn.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	k, err := NewKernelBackend(m.Sizes, m.Act, loss, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	if got := k.LossConfig(); !got.RankMatch() {
		t.Fatalf("LossConfig() = %+v", got)
	}
	b := &nn.Batch[float32]{X: make([]float32, 2), Actions: []uint8{1}, Adv: []float32{0.5}, BehLogp: []float32{-1}, RefLogp: []float32{-1, -1, -1}}
	if _, err := k.LossAndGrad(make([]float32, len(m.Params)), m, b); err == nil || !strings.Contains(err.Error(), "group index per row") {
		t.Errorf("no groups: %v", err)
	}
	b.Group = []int32{0}
	if _, err := k.LossAndGrad(make([]float32, len(m.Params)), m, b); err != nil {
		t.Error(err)
	}
}
