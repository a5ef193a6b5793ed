package autodiff

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// attnCase is an attention network of width d and a batch of peers-v1
// shaped rows (0..7 present slots), with groups of 3 rows for rank-match.
func attnCase(t *testing.T, seed uint64, d, rows int, act nn.Activation) (*nn.MLP[float64], *nn.Batch[float64]) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 9))
	m, err := nn.NewAttention[float64](d, []int{nn.AttnSelf + d, 11, nn.NumActions}, act)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(seed)
	for i := range m.Params {
		m.Params[i] *= 2
	}
	b := &nn.Batch[float64]{X: make([]float64, rows*nn.AttnIn), Actions: make([]uint8, rows), Adv: make([]float64, rows),
		BehLogp: make([]float64, rows), RefLogp: make([]float64, rows*nn.NumActions), Group: make([]int32, rows)}
	for r := range rows {
		x := b.X[r*nn.AttnIn : (r+1)*nn.AttnIn]
		for k := range nn.AttnSelf {
			x[k] = rng.NormFloat64()
		}
		for j := range rng.IntN(nn.AttnSlots + 1) {
			p := x[nn.AttnSelf+j*nn.AttnPeer : nn.AttnSelf+(j+1)*nn.AttnPeer]
			p[0] = 1
			for k := 1; k < nn.AttnPeer; k++ {
				p[k] = rng.Float64()
			}
		}
		b.Actions[r] = uint8(rng.IntN(nn.NumActions))
		b.Adv[r] = rng.NormFloat64()
		b.BehLogp[r] = math.Log(0.2 + 0.5*rng.Float64())
		lp := refLogSoftmax([]float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
		copy(b.RefLogp[r*nn.NumActions:], lp)
		b.Group[r] = int32(r / 3 * 3)
	}
	return m, b
}

// TestAttentionGraphMatchesNN: the Gorgonia graph of the attention network
// and each loss gives nn's plain-Go loss, gradient (every front tensor and
// layer) and logits, in float64.
func TestAttentionGraphMatchesNN(t *testing.T) {
	for _, cfg := range []nn.LossConfig{
		{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.05, Entropy: 0.01},
		{Beta: 0.3, Entropy: 0.01, Kind: nn.LossRankMatch},
	} {
		for _, act := range []nn.Activation{nn.Tanh, nn.ReLU} {
			m, b := attnCase(t, 17+uint64(act), 6, 21, act)
			e, err := NewAttention[float64](m.Attn, m.Sizes, act, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got := make([]float64, len(m.Params))
			st, err := e.LossAndGrad(got, m, b)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, len(m.Params))
			wst := nn.AttnLossAndGrad(want, m, b, cfg)
			name := nn.LossName(cfg.Kind) + "/" + act.String()
			if math.Abs(st.Loss-wst.Loss) > 1e-12 || math.Abs(st.KL-wst.KL) > 1e-12 || math.Abs(st.Entropy-wst.Entropy) > 1e-12 ||
				st.ClipLow != wst.ClipLow || st.ClipHigh != wst.ClipHigh {
				t.Errorf("%s: graph %+v, nn %+v", name, st, wst)
			}
			front := nn.AttnParams(m.Attn)
			for i := range got {
				if math.Abs(got[i]-want[i]) > 1e-12+1e-9*math.Abs(want[i]) {
					t.Errorf("%s: gradient %d (front: %v) graph %.12g, nn %.12g", name, i, i < front, got[i], want[i])
				}
			}
			sft := make([]float64, len(m.Params))
			l, err := e.SFTLossAndGrad(sft, m, b.X, b.Actions)
			if err != nil {
				t.Fatal(err)
			}
			wsft := make([]float64, len(m.Params))
			if wl := nn.AttnSFTLossAndGrad(wsft, m, b.X, b.Actions); math.Abs(l-wl) > 1e-12 {
				t.Errorf("%s: sft loss graph %v, nn %v", name, l, wl)
			}
			for i := range sft {
				if math.Abs(sft[i]-wsft[i]) > 1e-12+1e-9*math.Abs(wsft[i]) {
					t.Errorf("%s: sft gradient %d graph %.12g, nn %.12g", name, i, sft[i], wsft[i])
				}
			}
			logits := make([]float64, b.Len()*nn.NumActions)
			if err := e.Forward(logits, m, b.X); err != nil {
				t.Fatal(err)
			}
			ref := make([]float64, len(logits))
			nn.ForwardRef(ref, m, b.X)
			for i := range ref {
				if math.Abs(logits[i]-ref[i]) > 1e-12 {
					t.Fatalf("%s: logit %d graph %v, nn %v", name, i, logits[i], ref[i])
				}
			}
			// A model of another width is refused.
			other, _ := nn.NewAttention[float64](5, []int{nn.AttnSelf + 5, 11, nn.NumActions}, act)
			if _, err := e.LossAndGrad(make([]float64, len(other.Params)), other, b); err == nil {
				t.Errorf("%s: a network of width 5 is accepted by a width-6 engine", name)
			}
			e.Close()
		}
	}
}
