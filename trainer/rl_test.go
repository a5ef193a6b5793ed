package trainer

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// rlSamples builds a rollout batch of groups×perGroup rows of width f
// with random features, actions and rewards, and no behaviour log-probs.
func rlSamples(seed uint64, groups, perGroup, f int) *Samples {
	rng := rand.New(rand.NewPCG(seed, 1))
	s := &Samples{}
	for g := 0; g < groups; g++ {
		for k := 0; k < perGroup; k++ {
			for j := 0; j < f; j++ {
				s.Features = append(s.Features, float32(rng.NormFloat64()))
			}
			a := uint8(rng.IntN(nn.NumActions))
			s.Actions = append(s.Actions, a)
			// Reward favours action 1 so that there is something to learn.
			s.Rewards = append(s.Rewards, float64(a%2)+0.1*rng.NormFloat64())
			s.Groups = append(s.Groups, fmt.Sprintf("task-%d", g))
		}
	}
	return s
}

func newTestRL(t *testing.T, cfg Config, f int) *RL {
	t.Helper()
	policy, err := NewPolicy(&cfg, f)
	if err != nil {
		t.Fatal(err)
	}
	act, _ := nn.ParseActivation(cfg.Activation)
	backend, err := NewKernelBackend(policy.Sizes, act, cfg.Loss, 2)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(backend.Close)
	rl, err := NewRL(backend, policy, policy.Clone(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rl
}

func smallConfig() Config {
	c := DefaultConfig()
	c.Hidden = []int{16}
	c.RL.BatchSize = 64
	c.RL.UpdateEpochs = 3
	c.RL.KLTarget = 0
	return c
}

func TestMinibatchesKeepGroupsWhole(t *testing.T) {
	groups := []string{"a", "b", "a", "c", "b", "a", "d", "c"}
	var g grouping
	g.build(groups)
	var mbs minibatcher
	seen := make([]int, len(groups))
	for _, mb := range mbs.pack(&g, 3, rand.New(rand.NewPCG(1, 2))) {
		in := map[string]int{}
		for _, r := range mb {
			seen[r]++
			in[groups[r]]++
		}
		for g, n := range in {
			if want := slices.Index(groups, g); want >= 0 {
				total := 0
				for _, x := range groups {
					if x == g {
						total++
					}
				}
				if n != total {
					t.Errorf("group %q split: %d of %d rows in one minibatch", g, n, total)
				}
			}
		}
	}
	for r, n := range seen {
		if n != 1 {
			t.Errorf("row %d appears %d times", r, n)
		}
	}
}

// The behaviour log-probability of rows without one is the policy's at the
// start of the update: later update epochs must see ratios away from 1
// (clipping happens). Recomputing it at every step would keep ρ = 1.
func TestUpdateFixesBehaviourAtStart(t *testing.T) {
	cfg := smallConfig()
	cfg.Adam.LR = 0.05 // big steps so that the ratio leaves [0.8, 1.2]
	rl := newTestRL(t, cfg, 6)
	rl.FinalKL = true // ApproxKL after the last epoch, checked below
	clipped := 0.0
	rl.OnStep = func(s StepInfo) {
		if s.Epoch > 0 {
			clipped += s.Metrics.ClipLow + s.Metrics.ClipHigh
		}
	}
	res, err := rl.Update(rlSamples(3, 16, 12, 6))
	if err != nil {
		t.Fatal(err)
	}
	if res.Epochs != cfg.RL.UpdateEpochs {
		t.Errorf("ran %d update epochs, want %d", res.Epochs, cfg.RL.UpdateEpochs)
	}
	if clipped == 0 {
		t.Error("no ratio was clipped after the first update epoch: behaviour log-probs follow the policy")
	}
	if res.ApproxKL <= 0 {
		t.Errorf("approx KL %v after the update, want > 0", res.ApproxKL)
	}
}

// The estimate after the last epoch stops nothing: skipped (the default)
// or taken, the weights after the updates are the same bits; without it
// ApproxKL is the estimate after the epoch before the last.
func TestUpdateFinalKLChangesNoWeight(t *testing.T) {
	cfg := smallConfig()
	cfg.Adam.LR = 0.05
	cfg.RL.KLTarget = 10 // estimated after every epoch, never reached
	var params [2][]float32
	var kls [2][]float64
	for i, final := range []bool{false, true} {
		rl := newTestRL(t, cfg, 6)
		rl.FinalKL = final
		for seed := range uint64(3) {
			res, err := rl.Update(rlSamples(seed+5, 16, 12, 6))
			if err != nil {
				t.Fatal(err)
			}
			if res.Epochs != cfg.RL.UpdateEpochs || res.EarlyStop || !(res.ApproxKL > 0) {
				t.Fatalf("FinalKL %v: %d epochs, early stop %v, approx KL %v", final, res.Epochs, res.EarlyStop, res.ApproxKL)
			}
			kls[i] = append(kls[i], res.ApproxKL)
		}
		params[i] = rl.Stepper().Policy().Params
	}
	if !slices.Equal(params[0], params[1]) {
		t.Error("the KL estimate after the last epoch changed the weights")
	}
	for k := range kls[0] {
		if kls[0][k] == kls[1][k] {
			t.Errorf("update %d: approx KL %v with and without the last epoch's estimate: want the one before the last", k, kls[0][k])
		}
	}
}

func TestUpdateEarlyStopsOnKLTarget(t *testing.T) {
	cfg := smallConfig()
	cfg.Adam.LR = 0.05
	cfg.RL.UpdateEpochs = 10
	cfg.RL.KLTarget = 1e-4
	rl := newTestRL(t, cfg, 6)
	res, err := rl.Update(rlSamples(4, 16, 12, 6))
	if err != nil {
		t.Fatal(err)
	}
	if !res.EarlyStop || res.Epochs >= 10 || res.ApproxKL <= cfg.RL.KLTarget {
		t.Errorf("update ran %d epochs, early stop %v, approx KL %v (target %v)", res.Epochs, res.EarlyStop, res.ApproxKL, cfg.RL.KLTarget)
	}
}

func TestUpdateRaisesRewardedAction(t *testing.T) {
	cfg := smallConfig()
	cfg.Adam.LR = 0.01
	rl := newTestRL(t, cfg, 6)
	batch := rlSamples(5, 32, 12, 6)
	share := func() float64 {
		lp := make([]float64, batch.Len())
		acts := slices.Repeat([]uint8{1}, batch.Len())
		if err := rl.Stepper().PolicyLogProbsTo(lp, batch.Features, acts); err != nil {
			t.Fatal(err)
		}
		s := 0.0
		for _, v := range lp {
			s += math.Exp(v)
		}
		return s / float64(len(lp))
	}
	before := share()
	for i := 0; i < 5; i++ {
		if _, err := rl.Update(batch); err != nil {
			t.Fatal(err)
		}
	}
	if after := share(); after <= before+0.05 {
		t.Errorf("π(rewarded action) went %v → %v, want a clear rise", before, after)
	}
}

func TestRLDeterministic(t *testing.T) {
	run := func() []float32 {
		rl := newTestRL(t, smallConfig(), 6)
		for i := 0; i < 3; i++ {
			if _, err := rl.Update(rlSamples(uint64(i), 8, 10, 6)); err != nil {
				t.Fatal(err)
			}
		}
		return rl.Stepper().Policy().Params
	}
	a, b := run(), run()
	if !slices.Equal(a, b) {
		t.Error("same seed and data gave different weights")
	}
}

// nanBackend returns a NaN gradient on every call.
type nanBackend struct{ calls int }

func (n *nanBackend) LossAndGrad(grad []float32, m *nn.MLP[float32], b *nn.Batch[float32]) (nn.LossStats, error) {
	n.calls++
	for i := range grad {
		grad[i] = float32(math.NaN())
	}
	return nn.LossStats{}, nil
}

func (n *nanBackend) SFTLossAndGrad(grad []float32, m *nn.MLP[float32], x []float32, a []uint8) (float64, error) {
	return math.NaN(), nil
}

func TestTooManyBadStepsStops(t *testing.T) {
	cfg := smallConfig()
	cfg.MaxBadSteps = 3
	cfg.RL.BatchSize = 10
	policy, _ := NewPolicy(&cfg, 6)
	before := slices.Clone(policy.Params)
	nb := &nanBackend{}
	rl, err := NewRL(nb, policy, policy.Clone(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	skipped := 0
	rl.OnStep = func(s StepInfo) {
		if s.Skipped != nil {
			skipped++
		}
	}
	_, err = rl.Update(rlSamples(1, 10, 10, 6))
	if !errors.Is(err, ErrTooManyBadSteps) {
		t.Fatalf("err = %v, want ErrTooManyBadSteps", err)
	}
	if nb.calls != 3 || skipped != 3 || rl.Skipped != 3 {
		t.Errorf("%d backend calls, %d reported and %d counted skips, want 3 each", nb.calls, skipped, rl.Skipped)
	}
	if !slices.Equal(before, policy.Params) {
		t.Error("a non-finite step changed the weights")
	}
}

func TestSFTClonesLabels(t *testing.T) {
	cfg := smallConfig()
	policy, _ := NewPolicy(&cfg, 6)
	backend, err := NewKernelBackend(policy.Sizes, nn.Tanh, cfg.Loss, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	// Label: action = 2 when feature 0 > 0.5, 1 when < −0.5, else 0.
	rng := rand.New(rand.NewPCG(9, 9))
	var x []float32
	var y []uint8
	for i := 0; i < 600; i++ {
		row := make([]float32, 6)
		for j := range row {
			row[j] = float32(rng.NormFloat64())
		}
		a := uint8(0)
		if row[0] > 0.5 {
			a = 2
		} else if row[0] < -0.5 {
			a = 1
		}
		x, y = append(x, row...), append(y, a)
	}
	s, err := NewSFT(backend, policy, SFTConfig{Epochs: 1, BatchSize: 64, LR: 0.01}, cfg.Adam, 1)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := s.Epoch(x, y)
	var last float64
	for i := 0; i < 30; i++ {
		last, err = s.Epoch(x, y)
		if err != nil {
			t.Fatal(err)
		}
	}
	if last >= first/2 {
		t.Errorf("cross-entropy %v → %v, want it at least halved", first, last)
	}
	if a := Agreement(policy, x, y); a < 0.9 {
		t.Errorf("agreement with the labels %v, want ≥ 0.9", a)
	}
	if _, err := s.Epoch(x[:5], y); err == nil {
		t.Error("mismatched features accepted")
	}
	if _, err := s.Epoch(x, append(slices.Clone(y[:len(y)-1]), 3)); err == nil {
		t.Error("action 3 accepted")
	}
}

func TestKernelBackendRejectsMismatchedNetworks(t *testing.T) {
	cfg := smallConfig()
	policy, _ := NewPolicy(&cfg, 6)
	k, err := NewKernelBackend(policy.Sizes, policy.Act, cfg.Loss, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer k.Close()
	s := rlSamples(1, 2, 4, 6)
	b := &nn.Batch[float32]{X: s.Features, Actions: s.Actions, Adv: make([]float32, 8), BehLogp: make([]float32, 8), RefLogp: make([]float32, 24)}
	grad := make([]float32, len(policy.Params))
	short := policy.Clone()
	short.Params = short.Params[:len(short.Params)-1]
	other, _ := nn.NewMLP[float32]([]int{6, 8, 3}, nn.Tanh)
	for name, m := range map[string]*nn.MLP[float32]{"short params": short, "other sizes": other} {
		if _, err := k.LossAndGrad(grad[:len(m.Params)], m, b); err == nil {
			t.Errorf("%s: accepted", name)
		}
		if err := k.Forward(make([]float32, 24), m, s.Features); err == nil {
			t.Errorf("%s: forward accepted", name)
		}
	}
	if _, err := k.LossAndGrad(grad[1:], policy, b); err == nil {
		t.Error("short gradient accepted")
	}
}

// gather copies the listed rows, in order, whether or not they run
// consecutively in the source.
func TestGatherRows(t *testing.T) {
	const F, n = 2, 8
	src := &Samples{Features: make([]float32, n*F), Actions: make([]uint8, n), Rewards: make([]float64, n),
		Groups: make([]string, n), LogProb: make([]float64, n), RefLogProb: make([]float32, n*nn.NumActions), Adv: make([]float64, n)}
	for r := range n {
		src.Features[r*F], src.Features[r*F+1] = float32(r), float32(-r)
		src.Actions[r], src.Rewards[r], src.Groups[r] = uint8(r%3), float64(r), string(rune('a'+r))
		src.LogProb[r], src.Adv[r] = -float64(r), 10*float64(r)
		for j := range nn.NumActions {
			src.RefLogProb[r*nn.NumActions+j] = float32(100*r + j)
		}
	}
	rows := []int32{3, 4, 5, 0, 1, 7, 6}
	var dst Samples
	gather(&dst, src, rows, F)
	gather(&dst, src, rows, F) // reuses its storage
	if dst.Len() != len(rows) {
		t.Fatalf("%d rows, want %d", dst.Len(), len(rows))
	}
	for i, r := range rows {
		if dst.Features[i*F] != float32(r) || dst.Features[i*F+1] != float32(-r) || dst.Actions[i] != uint8(r%3) ||
			dst.Rewards[i] != float64(r) || dst.Groups[i] != string(rune('a'+r)) || dst.LogProb[i] != -float64(r) ||
			dst.Adv[i] != 10*float64(r) || dst.RefLogProb[i*nn.NumActions+2] != float32(100*r+2) {
			t.Errorf("row %d is not source row %d", i, r)
		}
	}
}

// The group statistics RL.Update gives each step, from the rollout batch's
// per-group values, are bit for bit those a step computes on its minibatch.
func TestMinibatchGroupSummary(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	const n = 200
	src := &Samples{Rewards: make([]float64, n), Groups: make([]string, n)}
	for i := range n {
		src.Groups[i] = fmt.Sprintf("g%d", i/(1+i%7))
		src.Rewards[i] = float64(rng.IntN(4)) * rng.Float64()
		if i%9 == 0 {
			src.Rewards[i] = 1 // some tied groups
		}
	}
	var r RL
	r.groups.build(src.Groups)
	r.gstd, r.gzero = make([]float64, r.groups.len()), make([]bool, r.groups.len())
	for g := range r.groups.len() {
		r.gstd[g], r.gzero[g] = r.groups.groupStat(g, src.Rewards)
	}
	for k, rows := range r.mbs.pack(&r.groups, 17, rng) {
		var mb Samples
		for _, i := range rows {
			mb.Rewards = append(mb.Rewards, src.Rewards[i])
			mb.Groups = append(mb.Groups, src.Groups[i])
		}
		var g grouping
		g.build(mb.Groups)
		std, frac := g.groupStats(mb.Rewards)
		if gs := r.summary(r.mbs.groups[k]); gs.stdMean != std || gs.fracZero != frac {
			t.Errorf("minibatch %d: summary %v %v, groupStats %v %v", k, gs.stdMean, gs.fracZero, std, frac)
		}
	}
}
