package trainer

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// recBackend wraps refBackend, keeps a copy of the last batch, and can
// corrupt its output.
type recBackend struct {
	refBackend
	last   nn.Batch[float32]
	calls  int
	poison func(grad []float32, st *nn.LossStats)
	err    error
}

func (r *recBackend) LossAndGrad(grad []float32, m *nn.MLP[float32], b *nn.Batch[float32]) (nn.LossStats, error) {
	r.calls++
	r.last = nn.Batch[float32]{X: slices.Clone(b.X), Actions: slices.Clone(b.Actions), Adv: slices.Clone(b.Adv),
		BehLogp: slices.Clone(b.BehLogp), RefLogp: slices.Clone(b.RefLogp)}
	if r.err != nil {
		return nn.LossStats{}, r.err
	}
	st, err := r.refBackend.LossAndGrad(grad, m, b)
	if r.poison != nil {
		r.poison(grad, &st)
	}
	return st, err
}

const testF = 6

func newTestStepper(t testing.TB, be Backend, cfg StepConfig) *Stepper {
	t.Helper()
	pol := testMLP(t, []int{testF, 8, 3}, nn.Tanh, 1)
	ref := pol.Clone()
	for i := range ref.Params { // a reference apart from the policy: KL ≠ 0
		ref.Params[i] *= 0.5
	}
	s, err := NewStepper(be, pol, ref, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// testSamples draws B rows in groups of 4, half of them with a behaviour
// log-prob near the policy's and half absent.
func testSamples(rng *rand.Rand, s *Stepper, B int) *Samples {
	sm := &Samples{Features: make([]float32, B*testF), Actions: make([]uint8, B), Rewards: make([]float64, B),
		Groups: make([]string, B), LogProb: make([]float64, B)}
	for i := range sm.Features {
		sm.Features[i] = float32(rng.NormFloat64())
	}
	for i := range B {
		sm.Actions[i] = uint8(rng.IntN(3))
		sm.Rewards[i] = float64(rng.IntN(3) - 1)
		sm.Groups[i] = string(rune('a' + i/4))
	}
	if err := s.PolicyLogProbsTo(sm.LogProb, sm.Features, sm.Actions); err != nil {
		panic(err)
	}
	for i := range sm.LogProb {
		if i%2 == 0 {
			sm.LogProb[i] = math.NaN()
		} else {
			sm.LogProb[i] += rng.Float64()*0.6 - 0.3
			sm.LogProb[i] = min(sm.LogProb[i], 0)
		}
	}
	return sm
}

func probs(m *nn.MLP[float32], x []float32) []float64 {
	z, lp := make([]float32, 3), make([]float32, 3)
	m.Logits(z, x)
	nn.LogSoftmaxTo(lp, z)
	return []float64{math.Exp(float64(lp[0])), math.Exp(float64(lp[1])), math.Exp(float64(lp[2]))}
}

// One step on a group where refine earned the reward raises π(refine|x) and
// lowers the others, for every estimator.
func TestStepRaisesProbabilityOfPositiveAdvantage(t *testing.T) {
	for _, est := range []Estimator{SoftRankEstimator{Tau: 0.8}, GRPO{}, RLOO{}} {
		cfg := DefaultStepConfig()
		cfg.Estimator = est
		s := newTestStepper(t, &recBackend{refBackend: refBackend{nn.DefaultLoss()}}, cfg)
		x := []float32{0.5, -1, 0.3, 2, -0.7, 0.1}
		sm := &Samples{Actions: []uint8{0, 1, 2, 1, 0, 2}, Rewards: []float64{0, 1, 0, 1, 0, 0}, Groups: make([]string, 6)}
		for range sm.Actions {
			sm.Features = append(sm.Features, x...)
		}
		before := probs(s.Policy(), x)
		if _, err := s.Step(sm, 1e-2); err != nil {
			t.Fatal(err)
		}
		after := probs(s.Policy(), x)
		if !(after[1] > before[1] && after[0] < before[0] && after[2] < before[2]) {
			t.Errorf("%s: π(·|x) went from %v to %v, want refine up and the others down", est.Name(), before, after)
		}
	}
}

// Over many rows with their own features, the surrogate Σ A_i log π(a_i|x_i)
// rises after one small step.
func TestStepRaisesSurrogate(t *testing.T) {
	cfg := DefaultStepConfig()
	s := newTestStepper(t, refBackend{nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.2}}, cfg)
	rng := rand.New(rand.NewPCG(4, 4))
	sm := testSamples(rng, s, 64)
	sm.LogProb = nil
	adv := make([]float64, 64)
	if err := GroupAdvantages(adv, sm.Rewards, sm.Groups, SoftRankEstimator{Tau: 0.8}); err != nil {
		t.Fatal(err)
	}
	surrogate := func() float64 {
		lp := make([]float64, 64)
		if err := s.PolicyLogProbsTo(lp, sm.Features, sm.Actions); err != nil {
			t.Fatal(err)
		}
		v := 0.0
		for i := range lp {
			v += adv[i] * lp[i]
		}
		return v
	}
	before := surrogate()
	if _, err := s.Step(sm, 1e-3); err != nil {
		t.Fatal(err)
	}
	if after := surrogate(); !(after > before) {
		t.Errorf("Σ A log π went from %v to %v", before, after)
	}
}

// The backend sees the group advantages, the reference log-probs of the
// frozen reference, and behaviour log-probs: the given ones, or the policy's
// at the start of the step where absent.
func TestStepBuildsBatch(t *testing.T) {
	be := &recBackend{refBackend: refBackend{nn.DefaultLoss()}}
	s := newTestStepper(t, be, DefaultStepConfig())
	rng := rand.New(rand.NewPCG(5, 5))
	sm := testSamples(rng, s, 20)
	pol := s.Policy().Clone()
	if _, err := s.Step(sm, 1e-3); err != nil {
		t.Fatal(err)
	}
	adv := make([]float64, 20)
	if err := GroupAdvantages(adv, sm.Rewards, sm.Groups, SoftRankEstimator{Tau: DefaultTau}); err != nil {
		t.Fatal(err)
	}
	z, lp := make([]float32, 3), make([]float32, 3)
	for i := range 20 {
		x := sm.Features[i*testF : (i+1)*testF]
		if be.last.Adv[i] != float32(adv[i]) {
			t.Errorf("row %d: advantage %v, want %v", i, be.last.Adv[i], adv[i])
		}
		s.Reference().Logits(z, x)
		nn.LogSoftmaxTo(lp, z)
		if !slices.Equal(be.last.RefLogp[3*i:3*i+3], lp) {
			t.Errorf("row %d: reference log-probs %v, want %v", i, be.last.RefLogp[3*i:3*i+3], lp)
		}
		want := float32(sm.LogProb[i])
		if math.IsNaN(sm.LogProb[i]) {
			pol.Logits(z, x)
			nn.LogSoftmaxTo(lp, z)
			want = lp[sm.Actions[i]]
		}
		if be.last.BehLogp[i] != want {
			t.Errorf("row %d: behaviour log-prob %v, want %v", i, be.last.BehLogp[i], want)
		}
	}
	if !slices.Equal(be.last.X, sm.Features) || !slices.Equal(be.last.Actions, sm.Actions) {
		t.Error("features or actions differ from the samples")
	}
}

// Step's update is the backend's gradient, clipped, through Adam's kernel
// (UpdateFast) — bit for bit.
func TestStepMatchesManualUpdate(t *testing.T) {
	for _, maxNorm := range []float64{0, 0.01} {
		cfg := DefaultStepConfig()
		cfg.MaxGradNorm = maxNorm
		be := &recBackend{refBackend: refBackend{nn.DefaultLoss()}}
		s := newTestStepper(t, be, cfg)
		rng := rand.New(rand.NewPCG(6, 6))
		params := slices.Clone(s.Policy().Params)
		adam := nn.NewAdam[float32](cfg.Adam, len(params))
		for step := range 3 {
			sm := testSamples(rng, s, 16)
			before := &nn.MLP[float32]{Sizes: s.Policy().Sizes, Act: s.Policy().Act, Params: slices.Clone(params)}
			mt, err := s.Step(sm, 1e-3)
			if err != nil {
				t.Fatal(err)
			}
			g := make([]float32, len(params))
			if _, err := be.refBackend.LossAndGrad(g, before, &be.last); err != nil {
				t.Fatal(err)
			}
			norm := nn.ClipGradNorm(g, maxNorm)
			adam.UpdateFast(params, g, 1e-3)
			if mt.GradNorm != norm {
				t.Errorf("max %v step %d: grad_norm %v, want %v", maxNorm, step, mt.GradNorm, norm)
			}
			if maxNorm > 0 && !(norm > maxNorm) {
				t.Fatalf("gradient norm %v never clipped at %v", norm, maxNorm)
			}
			if !slices.Equal(params, s.Policy().Params) || !slices.Equal(adam.M, s.Adam().M) || adam.Step != s.Adam().Step {
				t.Fatalf("max %v step %d: Step's update differs from backend → clip → Adam", maxNorm, step)
			}
		}
	}
}

type snapshot struct {
	params, m, v []uint32
	step         int64
}

func snap(s *Stepper) snapshot {
	bits := func(x []float32) []uint32 {
		b := make([]uint32, len(x))
		for i, v := range x {
			b[i] = math.Float32bits(v)
		}
		return b
	}
	a := s.Adam()
	return snapshot{bits(s.Policy().Params), bits(a.M), bits(a.V), a.Step}
}

func (a snapshot) equal(b snapshot) bool {
	return slices.Equal(a.params, b.params) && slices.Equal(a.m, b.m) && slices.Equal(a.v, b.v) && a.step == b.step
}

func TestStepNonFiniteLeavesStateUntouched(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	cases := []struct {
		name   string
		poison func(g []float32, st *nn.LossStats)
		what   string
		index  int
	}{
		{"nan gradient", func(g []float32, _ *nn.LossStats) { g[17] = float32(nan) }, "gradient", 17},
		{"inf gradient", func(g []float32, _ *nn.LossStats) { g[len(g)-1] = float32(-inf) }, "gradient", -2},
		{"nan loss", func(_ []float32, st *nn.LossStats) { st.Loss = nan }, "loss", -1},
		{"inf kl", func(_ []float32, st *nn.LossStats) { st.KL = inf }, "kl", -1},
	}
	for _, c := range cases {
		be := &recBackend{refBackend: refBackend{nn.DefaultLoss()}}
		s := newTestStepper(t, be, DefaultStepConfig())
		rng := rand.New(rand.NewPCG(7, 7))
		if _, err := s.Step(testSamples(rng, s, 12), 1e-3); err != nil { // non-zero Adam state
			t.Fatal(err)
		}
		before := snap(s)
		be.poison = c.poison
		sm := testSamples(rng, s, 12)
		mt, err := s.Step(sm, 1e-3)
		var nf *NonFiniteError
		if !errors.As(err, &nf) || nf.What != c.what {
			t.Fatalf("%s: error %v, want a *NonFiniteError about %s", c.name, err, c.what)
		}
		if want := c.index; want != -2 && nf.Index != want {
			t.Errorf("%s: index %d, want %d", c.name, nf.Index, want)
		}
		if !before.equal(snap(s)) {
			t.Errorf("%s: the policy or the Adam state changed", c.name)
		}
		if mt.Reward != mean(sm.Rewards) || mt.Loss != 0 {
			t.Errorf("%s: metrics %+v, want the reward statistics and no loss", c.name, mt)
		}
		// The next good step goes on from the untouched state.
		be.poison = nil
		if _, err := s.Step(sm, 1e-3); err != nil || snap(s).step != before.step+1 {
			t.Errorf("%s: the step after: %v", c.name, err)
		}
	}
}

func TestStepBackendError(t *testing.T) {
	be := &recBackend{refBackend: refBackend{nn.DefaultLoss()}, err: errors.New("out of memory")}
	s := newTestStepper(t, be, DefaultStepConfig())
	before := snap(s)
	_, err := s.Step(testSamples(rand.New(rand.NewPCG(1, 1)), s, 4), 1e-3)
	if err == nil || !strings.Contains(err.Error(), "backend: out of memory") || !errors.Is(err, be.err) {
		t.Errorf("error %v, want the backend's, wrapped", err)
	}
	if !before.equal(snap(s)) {
		t.Error("state changed")
	}
}

func TestStepMetrics(t *testing.T) {
	be := &recBackend{refBackend: refBackend{nn.DefaultLoss()}}
	s := newTestStepper(t, be, DefaultStepConfig())
	rng := rand.New(rand.NewPCG(8, 8))
	sm := testSamples(rng, s, 9)
	sm.Actions = []uint8{0, 1, 1, 2, 2, 2, 1, 1, 1}
	sm.Rewards = []float64{1, 3, 2, 5, 5, 5, 0, 4, -1}
	sm.Groups = []string{"a", "a", "a", "b", "b", "b", "c", "c", "c"}
	mt, err := s.Step(sm, 2.5e-4)
	if err != nil {
		t.Fatal(err)
	}
	adv := make([]float64, 9)
	_ = GroupAdvantages(adv, sm.Rewards, sm.Groups, SoftRankEstimator{Tau: DefaultTau})
	// Group a = {1, 3, 2}: std √(2/3); b ties: 0; c = {0, 4, −1}: std √(14/3).
	nonzero := 0
	for i, a := range adv {
		if math.Abs(a) > 1e-9 {
			nonzero++
		} else if sm.Groups[i] != "b" && i != 2 && i != 6 { // rows 2 and 6 hold their group's middle reward
			t.Errorf("row %d: advantage %v of a group with spread, not its middle", i, a)
		}
	}
	if nonzero < 4 || nonzero > 6 { // b's three tie at 0; a's and c's ends never do
		t.Errorf("%d rows with a non-zero advantage, want 4 to 6", nonzero)
	}
	want := Metrics{
		Reward:            (1 + 3 + 2 + 15 + 3) / 9.0,
		RewardStd:         (math.Sqrt(2.0/3) + math.Sqrt(14.0/3)) / 3,
		FracRewardZeroStd: 1.0 / 3,
		AdvMean:           mean(adv),
		AdvMin:            slicesMin(adv),
		AdvMax:            slicesMax(adv),
		LearningRate:      2.5e-4,
		ActPersist:        1.0 / 9,
		ActRefine:         5.0 / 9,
		ActConcede:        3.0 / 9,
		AdvNonZero:        float64(nonzero) / 9,
	}
	got := mt
	got.Loss, got.PolicyLoss, got.KL, got.Entropy, got.ClipLow, got.ClipHigh, got.GradNorm, got.StepTime = 0, 0, 0, 0, 0, 0, 0, 0
	for i, name := range MetricNames() {
		g, w := got.AppendValues(nil)[i], want.AppendValues(nil)[i]
		if math.Abs(g-w) > 1e-15 {
			t.Errorf("%s = %v, want %v", name, g, w)
		}
	}
	if math.Abs(mt.AdvMean) > 1e-15 || mt.AdvMin >= 0 || mt.AdvMax <= 0 {
		t.Errorf("advantages mean/min/max %v %v %v", mt.AdvMean, mt.AdvMin, mt.AdvMax)
	}
	// Loss statistics are the backend's on the batch before the update.
	s2 := newTestStepper(t, be, DefaultStepConfig())
	st2, _ := be.refBackend.LossAndGrad(make([]float32, len(s2.Policy().Params)), s2.Policy(), &be.last)
	if st2.Loss != mt.Loss || st2.KL != mt.KL || st2.Entropy != mt.Entropy || st2.PolicyLoss != mt.PolicyLoss || mt.KL <= 0 || mt.Entropy <= 0 {
		t.Errorf("loss stats %+v, backend %+v", mt, st2)
	}
	if mt.StepTime < 0 || mt.GradNorm <= 0 {
		t.Errorf("step_time %v grad_norm %v", mt.StepTime, mt.GradNorm)
	}
}

func TestStepBadInput(t *testing.T) {
	be := &recBackend{refBackend: refBackend{nn.DefaultLoss()}}
	s := newTestStepper(t, be, DefaultStepConfig())
	good := func() *Samples { return testSamples(rand.New(rand.NewPCG(9, 9)), s, 4) }
	cases := []struct {
		name string
		edit func(*Samples)
		lr   float64
		want string
	}{
		{"empty", func(b *Samples) { *b = Samples{} }, 1e-3, "empty batch"},
		{"feature length", func(b *Samples) { b.Features = b.Features[:len(b.Features)-1] }, 1e-3, "23 feature values for 4 rows of width 6"},
		{"rewards length", func(b *Samples) { b.Rewards = b.Rewards[:3] }, 1e-3, "3 rewards for 4 rows"},
		{"groups length", func(b *Samples) { b.Groups = nil }, 1e-3, "0 group keys for 4 rows"},
		{"logprob length", func(b *Samples) { b.LogProb = b.LogProb[:2] }, 1e-3, "2 log-probabilities for 4 rows"},
		{"action", func(b *Samples) { b.Actions[2] = 3 }, 1e-3, "row 2: action 3 outside [0, 3)"},
		{"nan reward", func(b *Samples) { b.Rewards[1] = math.NaN() }, 1e-3, "row 1: reward is NaN"},
		{"inf reward", func(b *Samples) { b.Rewards[3] = math.Inf(-1) }, 1e-3, "row 3: reward is -Inf"},
		{"nan feature", func(b *Samples) { b.Features[13] = float32(math.NaN()) }, 1e-3, "row 2: feature 1 is NaN"},
		{"inf logprob", func(b *Samples) { b.LogProb[0] = math.Inf(-1) }, 1e-3, "row 0: logprob -Inf"},
		{"positive logprob", func(b *Samples) { b.LogProb[1] = 0.5 }, 1e-3, "row 1: logprob 0.5"},
		{"advantages length", func(b *Samples) { b.Adv = make([]float64, 3) }, 1e-3, "3 advantages for 4 rows"},
		{"nan advantage", func(b *Samples) { b.Adv = make([]float64, 4); b.Adv[2] = math.NaN() }, 1e-3, "row 2: advantage is NaN"},
		{"negative lr", func(*Samples) {}, -1, "learning rate -1"},
		{"nan lr", func(*Samples) {}, math.NaN(), "learning rate NaN"},
	}
	for _, c := range cases {
		b := good()
		c.edit(b)
		before := snap(s)
		calls := be.calls
		mt, err := s.Step(b, c.lr)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
		if !before.equal(snap(s)) || be.calls != calls || mt != (Metrics{}) {
			t.Errorf("%s: state changed, backend called or metrics set", c.name)
		}
	}
	if _, err := s.Step(nil, 1e-3); err == nil {
		t.Error("nil samples: no error")
	}
	if _, err := s.Step(good(), 1e-3); err != nil {
		t.Errorf("the good batch: %v", err)
	}
}

func TestNewStepperErrors(t *testing.T) {
	be := refBackend{nn.DefaultLoss()}
	pol := testMLP(t, []int{4, 5, 3}, nn.Tanh, 1)
	other := testMLP(t, []int{4, 6, 3}, nn.Tanh, 1)
	two := testMLP(t, []int{4, 2}, nn.Tanh, 1)
	relu := testMLP(t, []int{4, 5, 3}, nn.ReLU, 1)
	cfg := DefaultStepConfig()
	bad := cfg
	bad.Adam.Eps = 0
	clip := cfg
	clip.MaxGradNorm = -1
	cases := []struct {
		be       Backend
		pol, ref *nn.MLP[float32]
		cfg      StepConfig
		want     string
	}{
		{nil, pol, pol, cfg, "nil backend"},
		{be, nil, pol, cfg, "nil policy"},
		{be, two, two, cfg, "2 outputs, want 3"},
		{be, pol, other, cfg, "differs from policy"},
		{be, pol, relu, cfg, "differs from policy"},
		{be, pol, pol, bad, "eps 0"},
		{be, pol, pol, clip, "max_grad_norm -1"},
		{be, &nn.MLP[float32]{Sizes: []int{4, 5, 3}, Params: make([]float32, 3)}, pol, cfg, "3 policy and 43 reference parameters"},
	}
	for _, c := range cases {
		if _, err := NewStepper(c.be, c.pol, c.ref, c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewStepper: %v, want %q", err, c.want)
		}
	}
	// A nil estimator is SoftRankPO at τ = 0.8.
	s, err := NewStepper(be, pol, pol, StepConfig{Adam: nn.DefaultAdam()})
	if err != nil || s.est != (SoftRankEstimator{Tau: DefaultTau}) {
		t.Errorf("default estimator: %v, %v", s, err)
	}
}

// The reference is a frozen copy: passing the policy itself as the reference
// (the usual start without a supervised stage) keeps π_ref at the initial
// policy while the policy moves.
func TestStepReferenceFrozen(t *testing.T) {
	pol := testMLP(t, []int{testF, 8, 3}, nn.Tanh, 1)
	init := slices.Clone(pol.Params)
	s, err := NewStepper(refBackend{nn.DefaultLoss()}, pol, pol, DefaultStepConfig())
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(10, 10))
	for range 3 {
		if _, err := s.Step(testSamples(rng, s, 8), 1e-2); err != nil {
			t.Fatal(err)
		}
	}
	if slices.Equal(pol.Params, init) || !slices.Equal(s.Reference().Params, init) {
		t.Error("the policy did not move or the reference did")
	}
	mt, _ := s.Step(testSamples(rng, s, 8), 1e-2)
	if !(mt.KL > 0) {
		t.Errorf("KL to the initial policy %v after three steps", mt.KL)
	}
}

func TestStepDeterministic(t *testing.T) {
	run := func() snapshot {
		s := newTestStepper(t, refBackend{nn.DefaultLoss()}, DefaultStepConfig())
		rng := rand.New(rand.NewPCG(11, 11))
		for range 4 {
			if _, err := s.Step(testSamples(rng, s, 10), 1e-2); err != nil {
				t.Fatal(err)
			}
		}
		return snap(s)
	}
	if !run().equal(run()) {
		t.Error("same seed, different bytes")
	}
}

func TestForwardMatchesLogits(t *testing.T) {
	var f forward
	rng := rand.New(rand.NewPCG(12, 12))
	for _, act := range []nn.Activation{nn.Tanh, nn.ReLU} {
		for _, sizes := range [][]int{{5, 3}, {5, 9, 3}, {5, 4, 7, 3}} {
			m := testMLP(t, sizes, act, 2)
			want := make([]float32, 3)
			for range 10 {
				x := make([]float32, 5)
				for k := range x {
					x[k] = float32(3 * rng.NormFloat64())
				}
				m.Logits(want, x)
				if got := f.logits(m, x); !slices.Equal(got, want) {
					t.Fatalf("%v %v: forward %v, Logits %v", act, sizes, got, want)
				}
			}
		}
	}
	m := testMLP(t, []int{5, 9, 3}, nn.Tanh, 2)
	x := make([]float32, 5)
	if n := testing.AllocsPerRun(10, func() { f.logits(m, x) }); n > 0 {
		t.Errorf("forward allocates %v times per row", n)
	}
}

func TestPolicyLogProbsToErrors(t *testing.T) {
	s := newTestStepper(t, refBackend{nn.DefaultLoss()}, DefaultStepConfig())
	x := make([]float32, 2*testF)
	for _, c := range []struct {
		dst  []float64
		x    []float32
		a    []uint8
		want string
	}{
		{make([]float64, 1), x, []uint8{0, 1}, "len(dst)=1 for 2 actions"},
		{make([]float64, 2), x[:5], []uint8{0, 1}, "5 feature values for 2 rows of width 6"},
		{make([]float64, 2), x, []uint8{0, 7}, "row 1: action 7"},
	} {
		if err := s.PolicyLogProbsTo(c.dst, c.x, c.a); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("PolicyLogProbsTo: %v, want %q", err, c.want)
		}
	}
}

// Advantages given with the samples (as RL.Update computes them once per
// rollout batch) are the estimator's: the step is bit for bit the one that
// computes them.
func TestStepGivenAdvantages(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	be := &recBackend{refBackend: refBackend{nn.DefaultLoss()}}
	a, b := newTestStepper(t, be, DefaultStepConfig()), newTestStepper(t, be, DefaultStepConfig())
	for range 3 {
		sm := testSamples(rng, a, 16)
		given := *sm
		given.Adv = make([]float64, sm.Len())
		if err := GroupAdvantages(given.Adv, sm.Rewards, sm.Groups, SoftRankEstimator{Tau: DefaultTau}); err != nil {
			t.Fatal(err)
		}
		ma, err := a.Step(sm, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		mb, err := b.Step(&given, 1e-3)
		if err != nil {
			t.Fatal(err)
		}
		ma.StepTime, mb.StepTime = 0, 0
		if ma != mb || !slices.Equal(a.Policy().Params, b.Policy().Params) {
			t.Fatalf("given advantages: metrics %+v, params differ %v; computed: %+v", mb, !slices.Equal(a.Policy().Params, b.Policy().Params), ma)
		}
	}
}
