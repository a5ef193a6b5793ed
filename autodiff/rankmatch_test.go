package autodiff

import (
	"math"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// rankLoss is the rank-matching loss of design §4 from its formulas, in
// plain Go: h = β·(log π(a|x) − log π_ref(a|x)), centred by the mean over
// the rows of its group, the mean of (h_c − A)², minus c_H·mean H.
func refRankLoss(sizes []int, act nn.Activation, cfg nn.LossConfig, params []float64, b *nn.Batch[float64]) nn.LossStats {
	var st nn.LossStats
	in, B := sizes[0], b.Len()
	h := make([]float64, B)
	sum, count := map[int32]float64{}, map[int32]float64{}
	for i := range B {
		logp := refLogSoftmax(refLogits(sizes, act, params, b.X[i*in:(i+1)*in]))
		a := b.Actions[i]
		h[i] = cfg.Beta * (logp[a] - b.RefLogp[i*nn.NumActions+int(a)])
		sum[b.Group[i]] += h[i]
		count[b.Group[i]]++
		for k := range nn.NumActions {
			p := math.Exp(logp[k])
			st.KL += p * (logp[k] - b.RefLogp[i*nn.NumActions+k])
			st.Entropy -= p * logp[k]
		}
	}
	for i := range B {
		g := b.Group[i]
		e := h[i] - sum[g]/count[g] - b.Adv[i]
		st.PolicyLoss += e * e
	}
	n := float64(B)
	st.PolicyLoss /= n
	st.KL /= n
	st.Entropy /= n
	st.Loss = st.PolicyLoss - cfg.Entropy*st.Entropy
	return st
}

var rankLoss = nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: 0.7, Entropy: 0.05, Kind: nn.LossRankMatch}

// withGroups puts the rows of b into groups of 1 to 4 rows, interleaved.
func withGroups(b *nn.Batch[float64]) *nn.Batch[float64] {
	b.Group = make([]int32, b.Len())
	for i := range b.Group {
		b.Group[i] = int32((i * 7 % b.Len()) / 3)
	}
	return b
}

// TestRankMatchGraph checks the graph's rank-matching loss against the
// plain-Go formulas, its gradient against their finite differences and
// against nn's reference loop, and float32 against float64.
func TestRankMatchGraph(t *testing.T) {
	for i, s := range shapes {
		t.Run(s.String(), func(t *testing.T) {
			e := newEngine[float64](t, s.sizes, s.act, rankLoss)
			m := randomModel(s.sizes, s.act, uint64(130+i))
			b := withGroups(randomBatch(m, rankLoss, s.batch, uint64(140+i)))
			grad := make([]float64, len(m.Params))
			st, err := e.LossAndGrad(grad, m, b)
			if err != nil {
				t.Fatal(err)
			}
			checkStats(t, st, refRankLoss(s.sizes, s.act, rankLoss, m.Params, b), 1e-12)
			want := fdGrad(m.Params, func(p []float64) float64 {
				return refRankLoss(s.sizes, s.act, rankLoss, p, b).Loss
			})
			checkGrad(t, s.sizes, grad, want)

			kernel := make([]float64, len(m.Params))
			kst := nn.LossAndGradRef(kernel, m, b, rankLoss)
			checkStats(t, st, kst, 1e-12)
			for j := range grad {
				if !near(grad[j], kernel[j], 1e-12, 1e-9) {
					t.Errorf("grad[%d] graph %v, nn reference %v", j, grad[j], kernel[j])
				}
			}

			e32 := newEngine[float32](t, s.sizes, s.act, rankLoss)
			m32, b32 := nn.Convert[float32](m), convertBatch[float32](b)
			g32 := make([]float32, len(m32.Params))
			s32, err := e32.LossAndGrad(g32, m32, b32)
			if err != nil {
				t.Fatal(err)
			}
			m64, b64 := nn.Convert[float64](m32), convertBatch[float64](b32)
			g64 := make([]float64, len(m64.Params))
			s64, err := e.LossAndGrad(g64, m64, b64)
			if err != nil {
				t.Fatal(err)
			}
			checkStats(t, s32, s64, 1e-5)
			scale := 0.0
			for _, v := range g64 {
				scale = math.Max(scale, math.Abs(v))
			}
			for j := range g64 {
				if !near(float64(g32[j]), g64[j], 1e-5*scale, 1e-4) {
					t.Errorf("grad[%d] float32 %v, float64 %v", j, g32[j], g64[j])
				}
			}
		})
	}
}

// TestRankMatchBatchOfOne: one row is its own group, h_c = 0, the loss is
// A² − c_H·H and only the entropy term moves the parameters; the graph of
// two copies must say the same as nn's reference on the one row.
func TestRankMatchBatchOfOne(t *testing.T) {
	s := shapes[0]
	e := newEngine[float64](t, s.sizes, s.act, rankLoss)
	m := randomModel(s.sizes, s.act, 7)
	b := withGroups(randomBatch(m, rankLoss, 1, 8))
	grad := make([]float64, len(m.Params))
	st, err := e.LossAndGrad(grad, m, b)
	if err != nil {
		t.Fatal(err)
	}
	want := make([]float64, len(m.Params))
	wst := nn.LossAndGradRef(want, m, b, rankLoss)
	checkStats(t, st, wst, 1e-12)
	if !near(st.PolicyLoss, b.Adv[0]*b.Adv[0], 1e-12, 1e-12) {
		t.Errorf("policy_loss %v, want A² = %v", st.PolicyLoss, b.Adv[0]*b.Adv[0])
	}
	for j := range grad {
		if !near(grad[j], want[j], 1e-12, 1e-9) {
			t.Errorf("grad[%d] graph %v, nn reference %v", j, grad[j], want[j])
		}
	}
	b.Group = nil
	if _, err := e.LossAndGrad(grad, m, b); err == nil {
		t.Error("rank-match without group indices: no error")
	}
}
