package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randAttnRows returns n rows of the peers-v1 shape: own features, then a
// random number (0..7) of present peer slots and zeros after them.
func randAttnRows[T Float](rng *rand.Rand, n int) []T {
	x := make([]T, n*AttnIn)
	for r := range n {
		row := x[r*AttnIn : (r+1)*AttnIn]
		for k := range AttnSelf {
			row[k] = T(rng.NormFloat64())
		}
		for j := range rng.IntN(AttnSlots + 1) {
			p := row[AttnSelf+j*AttnPeer : AttnSelf+(j+1)*AttnPeer]
			p[0] = 1
			for k := 1; k < AttnPeer; k++ {
				p[k] = T(rng.NormFloat64())
			}
		}
	}
	return x
}

func randAttnModel[T Float](t *testing.T, rng *rand.Rand, d int, hidden []int, act Activation) *MLP[T] {
	t.Helper()
	sizes := append(append([]int{AttnSelf + d}, hidden...), NumActions)
	m, err := NewAttention[T](d, sizes, act)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(rng.Uint64())
	for i := range m.Params { // sharper than the init: attention weights far from uniform
		m.Params[i] *= 3
	}
	return m
}

func attnBatch[T Float](rng *rand.Rand, m *MLP[T], n int) *Batch[T] {
	b := randBatch(rng, m, n) // features overwritten below; the rest drawn from them
	copy(b.X, randAttnRows[T](rng, n))
	b.Group = make([]int32, n)
	for i := range b.Group {
		b.Group[i] = int32(i / 4 * 4) // groups of 4 consecutive rows
	}
	return b
}

func TestAttentionShape(t *testing.T) {
	m, err := NewAttention[float32](16, []int{AttnSelf + 16, 64, 64, NumActions}, Tanh)
	if err != nil {
		t.Fatal(err)
	}
	n, _ := NumParams(m.Sizes)
	if m.In() != 110 || len(m.Params) != n+16*(26+1+12+1+12+1) {
		t.Errorf("In %d, %d parameters", m.In(), len(m.Params))
	}
	if _, err := NewAttention[float32](16, []int{26, 64, NumActions}, Tanh); err == nil {
		t.Error("a first layer of 26 inputs is accepted for width 16")
	}
	// The same seed gives the same parameters; the layers are drawn
	// first, as a plain MLP's of the same sizes.
	a, b := m.Clone(), m.Clone()
	a.Init(7)
	b.Init(7)
	if !slices.Equal(a.Params, b.Params) || a.Attn != 16 {
		t.Error("Init(7) twice differs, or Clone lost the width")
	}
	plain, _ := NewMLP[float32](m.Sizes, Tanh)
	plain.Init(7)
	if !slices.Equal(plain.Params, a.Params[AttnParams(16):]) {
		t.Error("the layers of an attention network are not drawn as a plain MLP's")
	}
	if w := a.AttnTensor(0); len(w) != 16*26 || &w[0] != &a.Params[0] {
		t.Error("AttnTensor(0) is not Wq at the start of Params")
	}
}

// The logits depend on the set of present peers, not on their order nor
// on empty slots; a row without peers attends to nothing (c = 0).
func TestAttentionInvariance(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := randAttnModel[float64](t, rng, 8, []int{17}, Tanh)
	for range 100 {
		x := randAttnRows[float64](rng, 1)
		n := 0
		for n < AttnSlots && x[AttnSelf+n*AttnPeer] == 1 {
			n++
		}
		perm := rng.Perm(n)
		y := slices.Clone(x)
		for j, pj := range perm {
			copy(y[AttnSelf+j*AttnPeer:AttnSelf+(j+1)*AttnPeer], x[AttnSelf+pj*AttnPeer:AttnSelf+(pj+1)*AttnPeer])
		}
		if n < AttnSlots { // garbage in an empty slot's other features changes nothing either
			y[AttnSelf+(AttnSlots-1)*AttnPeer+3] = 5
		}
		var lx, ly [NumActions]float64
		m.Logits(lx[:], x)
		m.Logits(ly[:], y)
		for i := range lx {
			if math.Abs(lx[i]-ly[i]) > 1e-12 {
				t.Fatalf("%d peers permuted %v: logits %v, %v", n, perm, lx, ly)
			}
		}
	}
	// No peer: the head sees [x_s, 0].
	x := randAttnRows[float64](rng, 1)
	clear(x[AttnSelf:])
	head := &MLP[float64]{Sizes: m.Sizes, Act: m.Act, Params: m.Params[AttnParams(m.Attn):]}
	var got, want [NumActions]float64
	m.Logits(got[:], x)
	head.Logits(want[:], append(slices.Clone(x[:AttnSelf]), make([]float64, m.Attn)...))
	for i := range got {
		if math.Abs(got[i]-want[i]) > 1e-12 {
			t.Fatalf("no peers: %v, head on [x_s, 0] %v", got, want)
		}
	}
}

// LogitsRows and ForwardRef give Logits' values bit for bit.
func TestAttentionLogitsRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := randAttnModel[float32](t, rng, 16, []int{64, 64}, ReLU)
	x := randAttnRows[float32](rng, 37)
	rows := make([]float32, 37*NumActions)
	ref := make([]float32, 37*NumActions)
	m.LogitsRows(rows, x, nil)
	ForwardRef(ref, m, x)
	for r := range 37 {
		var one [NumActions]float32
		m.Logits(one[:], x[r*AttnIn:(r+1)*AttnIn])
		for i, v := range one {
			if math.Float32bits(v) != math.Float32bits(rows[r*NumActions+i]) || math.Float32bits(v) != math.Float32bits(ref[r*NumActions+i]) {
				t.Fatalf("row %d: Logits %v, LogitsRows %v, ForwardRef %v", r, one, rows[r*NumActions:(r+1)*NumActions], ref[r*NumActions:(r+1)*NumActions])
			}
		}
	}
}

// TestAttentionFiniteDifference checks the attention network's gradient
// (every front tensor and layer) against central differences of the loss
// it reports, for the clip, rank-match and supervised losses, in float64.
func TestAttentionFiniteDifference(t *testing.T) {
	for _, act := range []Activation{Tanh, ReLU} {
		rng := rand.New(rand.NewPCG(41, uint64(act)))
		m := randAttnModel[float64](t, rng, 5, []int{9}, act)
		b := attnBatch(rng, m, 24)
		logits := make([]float64, 24*NumActions)
		ForwardRef(logits, m, b.X)
		lp := make([]float64, NumActions)
		for r := range 24 { // as TestGradientsFiniteDifference: keep clamped rows' terms bounded
			LogSoftmaxTo(lp, logits[r*NumActions:(r+1)*NumActions])
			if lp[b.Actions[r]]-b.BehLogp[r] > 20 {
				b.Adv[r] = math.Abs(b.Adv[r]) + 0.5
			}
		}
		clip := LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.1, Entropy: 0.02}
		rank := LossConfig{Beta: 0.3, Entropy: 0.02, Kind: LossRankMatch}
		scratch := make([]float64, len(m.Params))
		for name, loss := range map[string]func(g []float64) float64{
			"clip":       func(g []float64) float64 { return AttnLossAndGrad(g, m, b, clip).Loss },
			"rank-match": func(g []float64) float64 { return AttnLossAndGrad(g, m, b, rank).Loss },
			"sft":        func(g []float64) float64 { return AttnSFTLossAndGrad(g, m, b.X, b.Actions) },
		} {
			grad := make([]float64, len(m.Params))
			loss(grad)
			const h = 1e-6
			// Every front parameter, and a sample of the layers'.
			idx := make([]int, 0, AttnParams(m.Attn)+40)
			for i := range AttnParams(m.Attn) {
				idx = append(idx, i)
			}
			for range 40 {
				idx = append(idx, AttnParams(m.Attn)+rng.IntN(len(m.Params)-AttnParams(m.Attn)))
			}
			nonzero := 0
			for _, i := range idx {
				p := m.Params[i]
				m.Params[i] = p + h
				up := loss(scratch)
				m.Params[i] = p - h
				down := loss(scratch)
				m.Params[i] = p
				fd := (up - down) / (2 * h)
				if !(math.Abs(fd-grad[i]) <= 1e-7+1e-6*math.Abs(grad[i])) {
					t.Errorf("%v %s: ∂loss/∂θ[%d] = %.10g, finite difference %.10g", act, name, i, grad[i], fd)
				}
				if grad[i] != 0 {
					nonzero++
				}
			}
			if nonzero < len(idx)/2 {
				t.Errorf("%v %s: only %d of %d checked gradients are non-zero", act, name, nonzero, len(idx))
			}
		}
	}
}

// The gradient pass gives the same bits whether it kept the rows' state
// from the forward pass (batches up to attnCacheRows) or runs the forward
// pass again row by row (larger ones).
func TestAttentionCacheSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	m := randAttnModel[float32](t, rng, 8, []int{13}, Tanh)
	x := randAttnRows[float32](rng, 40)
	dz := make([]float32, 40*NumActions)
	for i := range dz {
		dz[i] = float32(rng.NormFloat64())
	}
	kept, again := make([]float32, len(m.Params)), make([]float32, len(m.Params))
	a := newAttnNet(m)
	a.keep(40)
	attnForwardTo(make([]float32, 40*NumActions), a, x)
	attnBackward(kept, a, x, dz)
	attnBackward(again, newAttnNet(m), x, dz)
	nonzero := 0
	for i := range kept {
		if math.Float32bits(kept[i]) != math.Float32bits(again[i]) {
			t.Fatalf("parameter %d: kept state %v, recomputed %v", i, kept[i], again[i])
		}
		if kept[i] != 0 {
			nonzero++
		}
	}
	if nonzero < len(kept)/2 {
		t.Errorf("only %d of %d gradients are non-zero", nonzero, len(kept))
	}
}
