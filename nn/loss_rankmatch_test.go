package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// withGroups gives b random groups: rows drawn into about n/4 groups, not
// contiguous, some of one row.
func withGroups[T Float](rng *rand.Rand, b *Batch[T]) *Batch[T] {
	n := b.Len()
	b.Group = make([]int32, n)
	k := 1 + n/4
	for i := range b.Group {
		b.Group[i] = int32(rng.IntN(k))
	}
	return b
}

func rankCfg(beta, ent float64) LossConfig {
	return LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: beta, Entropy: ent, Kind: LossRankMatch}
}

func TestRankMatchMatchesRef(t *testing.T) {
	testRankMatch[float32](t)
	testRankMatch[float64](t)
}

func testRankMatch[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		rng := rand.New(rand.NewPCG(7, 8))
		rel, abs := tolerance[T]()
		for trial := range 4 {
			act := Activation(trial % 2)
			sizes := randSizes(rng, 1+rng.IntN(40), NumActions)
			m := randModel[T](rng, sizes, act)
			threads := 1 + trial%3
			ws, err := newWorkspace(sizes, act, 1000, threads, k)
			if err != nil {
				t.Fatal(err)
			}
			spreadBlocks(ws, trial)
			cfg := rankCfg(0.05+0.5*float64(trial), 0.01*float64(trial%2))
			for _, n := range batchSizes {
				name := fmt.Sprintf("sizes=%v/%v/threads=%d/batch=%d", sizes, act, threads, n)
				b := withGroups(rng, randBatch(rng, m, n))
				want := make([]T, len(m.Params))
				wantSt := LossAndGradRef(want, m, b, cfg)
				got := make([]T, len(m.Params))
				for i := range got {
					got[i] = T(math.NaN()) // every element must be written
				}
				gotSt := ws.LossAndGrad(got, m, b, cfg)
				closeTo(t, name+": grad", got, want, rel, abs)
				closeStats(t, name, gotSt, wantSt, rel)
				if gotSt.ClipLow != 0 || gotSt.ClipHigh != 0 {
					t.Errorf("%s: clip ratios %v/%v, want 0 (no ratio clip in rank-match)", name, gotSt.ClipLow, gotSt.ClipHigh)
				}
			}
			ws.Close()
		}
	})
}

// TestRankMatchAtReference checks the loss and the logit gradient by hand
// where the policy is its reference: h = 0, so the loss is mean(A²) (plus
// the entropy term, here 0) and ∂loss/∂lp[a] = −(2β/B)·(A − mean_g A).
func TestRankMatchAtReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m := randModel[float64](rng, []int{5, 4, NumActions}, Tanh)
	// One row: the gradient of the bias of the output layer is dz.
	b := randBatch(rng, m, 4)
	b.Group = []int32{0, 0, 2, 2}
	b.Adv = []float64{1.5, -0.5, 0.25, 0.25}
	logits := make([]float64, 4*NumActions)
	ForwardRef(logits, m, b.X)
	for r := range 4 {
		LogSoftmaxTo(b.RefLogp[r*NumActions:(r+1)*NumActions], logits[r*NumActions:(r+1)*NumActions])
	}
	beta := 0.5
	grad := make([]float64, len(m.Params))
	st := LossAndGradRef(grad, m, b, rankCfg(beta, 0))
	wantLoss := (1.5*1.5 + 0.5*0.5 + 0.25*0.25 + 0.25*0.25) / 4
	if math.Abs(st.Loss-wantLoss) > 1e-12 || math.Abs(st.PolicyLoss-wantLoss) > 1e-12 || math.Abs(st.KL) > 1e-12 {
		t.Fatalf("loss %v policy_loss %v kl %v, want %v, %v, 0", st.Loss, st.PolicyLoss, st.KL, wantLoss, wantLoss)
	}
	// Output bias gradient: Σ_r dz_r, dz_r = c_r·(onehot(a_r) − p_r)/B.
	gb := LayerBias(m.Sizes, grad, m.Layers()-1)
	groupMean := []float64{0.5, 0.5, 0.25, 0.25}
	want := make([]float64, NumActions)
	for r := range 4 {
		c := -2 * beta * (b.Adv[r] - groupMean[r])
		for j := range want {
			p := math.Exp(b.RefLogp[r*NumActions+j])
			oh := 0.0
			if j == int(b.Actions[r]) {
				oh = 1
			}
			want[j] += c * (oh - p) / 4
		}
	}
	for j := range want {
		if math.Abs(gb[j]-want[j]) > 1e-12 {
			t.Errorf("∂loss/∂b_out[%d] = %v, want %v", j, gb[j], want[j])
		}
	}
}

// TestRankMatchFiniteDifference checks the float64 gradients of the
// rank-matching loss, kernels and reference, against central differences.
func TestRankMatchFiniteDifference(t *testing.T) {
	type lossFn func(grad []float64, m *MLP[float64], b *Batch[float64], cfg LossConfig) LossStats
	impls := map[string]lossFn{"ref": LossAndGradRef[float64]}
	for _, k := range kernelSetsFor[float64]() {
		ws, err := newWorkspace([]int{6, 9, 7, NumActions}, Tanh, 50, 2, k)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		wr, err := newWorkspace([]int{6, 9, 7, NumActions}, ReLU, 50, 2, k)
		if err != nil {
			t.Fatal(err)
		}
		defer wr.Close()
		impls[k.name] = func(grad []float64, m *MLP[float64], b *Batch[float64], cfg LossConfig) LossStats {
			if m.Act == ReLU {
				return wr.LossAndGrad(grad, m, b, cfg)
			}
			return ws.LossAndGrad(grad, m, b, cfg)
		}
	}
	for name, f := range impls {
		for _, act := range []Activation{Tanh, ReLU} {
			t.Run(fmt.Sprintf("%s/%v", name, act), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(41, uint64(act)))
				m := randModel[float64](rng, []int{6, 9, 7, NumActions}, act)
				b := withGroups(rng, randBatch(rng, m, 50))
				cfg := rankCfg(0.3, 0.02)
				grad := make([]float64, len(m.Params))
				scratch := make([]float64, len(m.Params))
				f(grad, m, b, cfg)
				const h = 1e-6
				for range 60 {
					i := rng.IntN(len(m.Params))
					p := m.Params[i]
					m.Params[i] = p + h
					up := f(scratch, m, b, cfg).Loss
					m.Params[i] = p - h
					down := f(scratch, m, b, cfg).Loss
					m.Params[i] = p
					fd := (up - down) / (2 * h)
					if !(math.Abs(fd-grad[i]) <= 1e-7+1e-6*math.Abs(grad[i])) {
						t.Errorf("∂loss/∂θ[%d] = %.10g, finite difference %.10g", i, grad[i], fd)
					}
				}
			})
		}
	}
}

func TestLossKind(t *testing.T) {
	for in, want := range map[string]string{"clip": "", "": "", "rank-match": LossRankMatch} {
		if got, err := ParseLossKind(in); err != nil || got != want {
			t.Errorf("ParseLossKind(%q) = %q, %v; want %q", in, got, err, want)
		}
		if LossName(want) != map[string]string{"": "clip", LossRankMatch: "rank-match"}[want] {
			t.Errorf("LossName(%q) = %q", want, LossName(want))
		}
	}
	if _, err := ParseLossKind("dpo"); err == nil || !strings.Contains(err.Error(), "rank-match") {
		t.Errorf("ParseLossKind(dpo): %v, want an error naming the choices", err)
	}
	bad := rankCfg(0, 0)
	if err := bad.Validate(); err == nil {
		t.Error("rank-match with β = 0 validated")
	}
	bad = DefaultLoss()
	bad.Kind = "dpo"
	if err := bad.Validate(); err == nil {
		t.Error("kind dpo validated")
	}
	if err := rankCfg(0.05, 0).Validate(); err != nil {
		t.Error(err)
	}
}

func TestBatchCheckGroups(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	m := randModel[float32](rng, []int{4, 3, NumActions}, Tanh)
	b := randBatch(rng, m, 5)
	b.Group = []int32{0, 1}
	if err := b.Check(4); err == nil || !strings.Contains(err.Error(), "2 group indices for 5 rows") {
		t.Errorf("short Group: %v", err)
	}
	b.Group = []int32{0, 1, 2, 5, 0}
	if err := b.Check(4); err == nil || !strings.Contains(err.Error(), "row 3: group index 5") {
		t.Errorf("Group out of range: %v", err)
	}
	b.Group = []int32{0, 1, 2, 4, 0}
	if err := b.Check(4); err != nil {
		t.Error(err)
	}
	b.Group = nil
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "group index per row") {
			t.Errorf("rank-match without groups: panic %v", r)
		}
	}()
	LossAndGradRef(make([]float32, len(m.Params)), m, b, rankCfg(0.1, 0))
}

// Given coefficients (Batch.Coef, from RankMatchCoef over the same batch)
// give the rank-match gradient, KL and entropy the batch's own centring
// gives, on the workspace's kernels, the reference and the attention loops;
// the policy loss is then the caller's (0). Two halves of the batch, each
// with its rows' coefficients and scaled by its share, sum to the whole
// batch's gradient: how several networks split one objective.
func TestRankMatchGivenCoefficients(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	cfg := rankCfg(0.5, 0.01)
	mlp := randModel[float64](rng, []int{12, 9, NumActions}, Tanh)
	attn, err := NewAttention[float64](4, []int{AttnSelf + 4, 6, NumActions}, Tanh)
	if err != nil {
		t.Fatal(err)
	}
	attn.Init(5)
	for _, m := range []*MLP[float64]{mlp, attn} {
		b := withGroups(rng, randBatch(rng, m, 37))
		n := b.Len()
		z := make([]float64, n*NumActions)
		ForwardRef(z, m, b.X)
		lpa := make([]float64, n)
		for i := range lpa {
			lp := make([]float64, NumActions)
			LogSoftmaxTo(lp, z[i*NumActions:(i+1)*NumActions])
			lpa[i] = lp[b.Actions[i]]
		}
		coef := make([]float64, n)
		sq, err := RankMatchCoef(coef, lpa, b, cfg.Beta)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, len(m.Params))
		wantSt := LossAndGradRef(want, m, b, cfg)
		if math.Abs(sq/float64(n)-wantSt.PolicyLoss) > 1e-12 {
			t.Errorf("attn %d: RankMatchCoef Σe²/B %v, the loss's %v", m.Attn, sq/float64(n), wantSt.PolicyLoss)
		}
		given := *b
		given.Coef, given.Group = coef, nil
		got := make([]float64, len(m.Params))
		st := LossAndGradRef(got, m, &given, cfg)
		closeTo(t, fmt.Sprintf("attn %d: given coefficients", m.Attn), got, want, 1e-9, 1e-12)
		if math.Abs(st.KL-wantSt.KL) > 1e-12 || math.Abs(st.Entropy-wantSt.Entropy) > 1e-12 || st.PolicyLoss != 0 {
			t.Errorf("attn %d: stats %+v, want KL and entropy of %+v and policy loss 0", m.Attn, st, wantSt)
		}
		if m.Attn == 0 {
			ws, err := NewWorkspace[float64](m.Sizes, m.Act, n, 2)
			if err != nil {
				t.Fatal(err)
			}
			ws.LossAndGrad(got, m, &given, cfg)
			ws.Close()
			closeTo(t, "workspace, given coefficients", got, want, 1e-9, 1e-12)
		}
		// The two halves, each scaled by its share of the rows.
		sum := make([]float64, len(m.Params))
		for _, rows := range [][2]int{{0, 20}, {20, n}} {
			lo, hi := rows[0], rows[1]
			in := m.In()
			half := Batch[float64]{X: b.X[lo*in : hi*in], Actions: b.Actions[lo:hi], Adv: b.Adv[lo:hi], BehLogp: b.BehLogp[lo:hi],
				RefLogp: b.RefLogp[lo*NumActions : hi*NumActions], Coef: coef[lo:hi]}
			g := make([]float64, len(m.Params))
			LossAndGradRef(g, m, &half, cfg)
			for i := range g {
				sum[i] += g[i] * float64(hi-lo) / float64(n)
			}
		}
		closeTo(t, fmt.Sprintf("attn %d: two halves", m.Attn), sum, want, 1e-9, 1e-12)
	}
	if _, err := RankMatchCoef(make([]float64, 2), make([]float64, 3), &Batch[float64]{Actions: []uint8{0, 1}}, 0.5); err == nil {
		t.Error("RankMatchCoef took slices of other lengths")
	}
}
