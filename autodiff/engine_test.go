package autodiff

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

type shape struct {
	sizes []int
	act   nn.Activation
	batch int
}

var shapes = []shape{
	{[]int{5, 7, 3}, nn.Tanh, 12},
	{[]int{5, 7, 3}, nn.ReLU, 12},
	{[]int{26, 16, 16, 3}, nn.Tanh, 10},
	{[]int{26, 16, 16, 3}, nn.ReLU, 10},
}

func (s shape) String() string { return fmt.Sprintf("sizes=%v/act=%v", s.sizes, s.act) }

func newEngine[T nn.Float](t testing.TB, sizes []int, act nn.Activation, cfg nn.LossConfig) *Engine[T] {
	t.Helper()
	e, err := New[T](sizes, act, cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// near reports whether got and want agree within abs + rel·|want|.
func near(got, want, abs, rel float64) bool {
	return math.Abs(got-want) <= abs+rel*math.Abs(want)
}

func checkStats(t *testing.T, got, want nn.LossStats, tol float64) {
	t.Helper()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"loss", got.Loss, want.Loss},
		{"policy_loss", got.PolicyLoss, want.PolicyLoss},
		{"kl", got.KL, want.KL},
		{"entropy", got.Entropy, want.Entropy},
		{"clip_ratio/low", got.ClipLow, want.ClipLow},
		{"clip_ratio/high", got.ClipHigh, want.ClipHigh},
	} {
		if !near(c.got, c.want, tol, tol) {
			t.Errorf("%s = %.15g, want %.15g", c.name, c.got, c.want)
		}
	}
}

// TestLossMatchesReference compares the loss and each of its parts with the
// plain-Go computation of the design §3–§4 formulas.
func TestLossMatchesReference(t *testing.T) {
	for i, s := range shapes {
		t.Run(s.String(), func(t *testing.T) {
			e := newEngine[float64](t, s.sizes, s.act, testLoss)
			m := randomModel(s.sizes, s.act, uint64(10+i))
			b := randomBatch(m, testLoss, s.batch, uint64(20+i))
			grad := make([]float64, len(m.Params))
			got, err := e.LossAndGrad(grad, m, b)
			if err != nil {
				t.Fatal(err)
			}
			want := refLoss(s.sizes, s.act, testLoss, m.Params, b)
			checkStats(t, got, want, 1e-12)
			// The pinned rows put at least two rows on each clip side.
			if min(got.ClipLow, got.ClipHigh) < 2/float64(s.batch) {
				t.Errorf("clip ratios low %v high %v, want ≥ %v each", got.ClipLow, got.ClipHigh, 2/float64(s.batch))
			}
			if got.KL <= 0 || got.Entropy <= 0 {
				t.Errorf("kl %v entropy %v, want both > 0 for this batch", got.KL, got.Entropy)
			}
		})
	}
}

// TestLossDefaultConfig checks the default coefficients (c_H = 0, equal clip
// bounds) against the reference as well.
func TestLossDefaultConfig(t *testing.T) {
	sizes := []int{5, 7, 3}
	cfg := nn.DefaultLoss()
	e := newEngine[float64](t, sizes, nn.Tanh, cfg)
	m := randomModel(sizes, nn.Tanh, 3)
	b := randomBatch(m, cfg, 16, 4)
	got, err := e.LossAndGrad(make([]float64, len(m.Params)), m, b)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, got, refLoss(sizes, nn.Tanh, cfg, m.Params, b), 1e-12)
}

// fdGrad returns the central finite-difference gradient of f at p.
func fdGrad(p []float64, f func([]float64) float64) []float64 {
	const h = 1e-6
	g := make([]float64, len(p))
	q := slices.Clone(p)
	for i := range p {
		q[i] = p[i] + h
		fp := f(q)
		q[i] = p[i] - h
		fm := f(q)
		q[i] = p[i]
		g[i] = (fp - fm) / (2 * h)
	}
	return g
}

func checkGrad(t *testing.T, sizes []int, got, want []float64) {
	t.Helper()
	scale := 0.0
	for _, v := range want {
		scale = math.Max(scale, math.Abs(v))
	}
	if scale < 1e-3 {
		t.Fatalf("finite-difference gradient max |g| = %g: the test batch exercises almost nothing", scale)
	}
	bad := 0
	for i := range want {
		if !near(got[i], want[i], 1e-7*(1+scale), 1e-6) {
			if bad++; bad <= 5 {
				t.Errorf("grad[%d] (%s) = %.12g, finite differences %.12g", i, where(sizes, i), got[i], want[i])
			}
		}
	}
	if bad > 5 {
		t.Errorf("... %d of %d gradient entries differ", bad, len(want))
	}
}

// where names the parameter at flat index i.
func where(sizes []int, i int) string {
	for l := 0; l+1 < len(sizes); l++ {
		nw, nb := sizes[l]*sizes[l+1], sizes[l+1]
		if i < nw {
			return fmt.Sprintf("layers.%d.weight[%d,%d]", l, i/sizes[l], i%sizes[l])
		}
		if i < nw+nb {
			return fmt.Sprintf("layers.%d.bias[%d]", l, i-nw)
		}
		i -= nw + nb
	}
	return "out of range"
}

// TestGradMatchesFiniteDifferences checks dLoss/dParams of the whole
// SoftRankPO loss against central differences of the reference loss, on
// batches where both clip sides, the ℓ clamp, β and c_H are all active.
func TestGradMatchesFiniteDifferences(t *testing.T) {
	for i, s := range shapes {
		t.Run(s.String(), func(t *testing.T) {
			e := newEngine[float64](t, s.sizes, s.act, testLoss)
			m := randomModel(s.sizes, s.act, uint64(30+i))
			b := randomBatch(m, testLoss, s.batch, uint64(40+i))
			grad := make([]float64, len(m.Params))
			st, err := e.LossAndGrad(grad, m, b)
			if err != nil {
				t.Fatal(err)
			}
			if st.ClipLow == 0 || st.ClipHigh == 0 {
				t.Fatalf("clip ratios low %v high %v: want both sides active", st.ClipLow, st.ClipHigh)
			}
			want := fdGrad(m.Params, func(p []float64) float64 {
				return refLoss(s.sizes, s.act, testLoss, p, b).Loss
			})
			checkGrad(t, s.sizes, grad, want)
		})
	}
}

// TestGradEachTerm isolates each term of the loss (β only, c_H only, the
// clipped objective only) so that a wrong gradient in one term cannot hide
// behind a larger one.
func TestGradEachTerm(t *testing.T) {
	sizes := []int{5, 7, 3}
	for _, cfg := range []nn.LossConfig{
		{EpsLow: 0.2, EpsHigh: 0.28},
		{EpsLow: 0.2, EpsHigh: 0.28, Beta: 1},
		{EpsLow: 0.2, EpsHigh: 0.28, Entropy: 1},
	} {
		t.Run(fmt.Sprintf("beta=%v/entropy=%v", cfg.Beta, cfg.Entropy), func(t *testing.T) {
			e := newEngine[float64](t, sizes, nn.Tanh, cfg)
			m := randomModel(sizes, nn.Tanh, 5)
			b := randomBatch(m, cfg, 12, 6)
			if cfg.Beta != 0 || cfg.Entropy != 0 {
				clear(b.Adv) // the clipped objective contributes nothing
			}
			grad := make([]float64, len(m.Params))
			if _, err := e.LossAndGrad(grad, m, b); err != nil {
				t.Fatal(err)
			}
			checkGrad(t, sizes, grad, fdGrad(m.Params, func(p []float64) float64 {
				return refLoss(sizes, nn.Tanh, cfg, p, b).Loss
			}))
		})
	}
}

// TestSFT checks the supervised cross-entropy and its gradient.
func TestSFT(t *testing.T) {
	for i, s := range shapes {
		t.Run(s.String(), func(t *testing.T) {
			e := newEngine[float64](t, s.sizes, s.act, testLoss)
			m := randomModel(s.sizes, s.act, uint64(50+i))
			b := randomBatch(m, testLoss, s.batch, uint64(60+i))
			grad := make([]float64, len(m.Params))
			loss, err := e.SFTLossAndGrad(grad, m, b.X, b.Actions)
			if err != nil {
				t.Fatal(err)
			}
			if want := refSFT(s.sizes, s.act, m.Params, b.X, b.Actions); !near(loss, want, 1e-12, 1e-12) {
				t.Errorf("loss %.15g, want %.15g", loss, want)
			}
			checkGrad(t, s.sizes, grad, fdGrad(m.Params, func(p []float64) float64 {
				return refSFT(s.sizes, s.act, p, b.X, b.Actions)
			}))
		})
	}
}

// TestForward compares the logits with the plain forward pass.
func TestForward(t *testing.T) {
	for i, s := range shapes {
		t.Run(s.String(), func(t *testing.T) {
			e := newEngine[float64](t, s.sizes, s.act, testLoss)
			m := randomModel(s.sizes, s.act, uint64(70+i))
			b := randomBatch(m, testLoss, s.batch, uint64(80+i))
			logits := make([]float64, s.batch*nn.NumActions)
			if err := e.Forward(logits, m, b.X); err != nil {
				t.Fatal(err)
			}
			in := s.sizes[0]
			for r := range s.batch {
				want := refLogits(s.sizes, s.act, m.Params, b.X[r*in:(r+1)*in])
				for a := range nn.NumActions {
					if got := logits[r*nn.NumActions+a]; !near(got, want[a], 1e-12, 1e-12) {
						t.Errorf("row %d action %d: logit %.15g, want %.15g", r, a, got, want[a])
					}
				}
			}
		})
	}
}

// TestLargeLogits checks that the log-softmax is stable: with logits in the
// thousands a naive exp overflows to +Inf and the loss becomes NaN.
func TestLargeLogits(t *testing.T) {
	sizes := []int{5, 7, 3}
	e := newEngine[float64](t, sizes, nn.ReLU, testLoss)
	m := randomModel(sizes, nn.ReLU, 9)
	b := randomBatch(m, testLoss, 12, 10)
	for i := range m.Params {
		m.Params[i] *= 40 // two layers: logits scale by 1600
	}
	lg := make([]float64, 12*nn.NumActions)
	if err := e.Forward(lg, m, b.X); err != nil {
		t.Fatal(err)
	}
	if mx := slices.Max(lg) - slices.Min(lg); mx < 1000 {
		t.Fatalf("logit spread %v, want > 1000 for this test to mean anything", mx)
	}
	grad := make([]float64, len(m.Params))
	got, err := e.LossAndGrad(grad, m, b)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, got, refLoss(sizes, nn.ReLU, testLoss, m.Params, b), 1e-9)
	sft, err := e.SFTLossAndGrad(grad, m, b.X, b.Actions)
	if err != nil {
		t.Fatal(err)
	}
	if want := refSFT(sizes, nn.ReLU, m.Params, b.X, b.Actions); !near(sft, want, 1e-9, 1e-9) {
		t.Errorf("sft loss %v, want %v", sft, want)
	}
}

// TestFloat32MatchesFloat64 runs the same model and batch through a float32
// and a float64 engine.
func TestFloat32MatchesFloat64(t *testing.T) {
	for i, s := range shapes {
		t.Run(s.String(), func(t *testing.T) {
			e64 := newEngine[float64](t, s.sizes, s.act, testLoss)
			e32 := newEngine[float32](t, s.sizes, s.act, testLoss)
			m64 := randomModel(s.sizes, s.act, uint64(90+i))
			b64 := randomBatch(m64, testLoss, s.batch, uint64(100+i))
			m32, b32 := nn.Convert[float32](m64), convertBatch[float32](b64)
			// Compare on the float32-rounded values so that only the
			// arithmetic differs.
			m64, b64 = nn.Convert[float64](m32), convertBatch[float64](b32)

			g64 := make([]float64, len(m64.Params))
			g32 := make([]float32, len(m32.Params))
			s64, err := e64.LossAndGrad(g64, m64, b64)
			if err != nil {
				t.Fatal(err)
			}
			s32, err := e32.LossAndGrad(g32, m32, b32)
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

			f64 := make([]float64, len(g64))
			f32 := make([]float32, len(g32))
			l64, err := e64.SFTLossAndGrad(f64, m64, b64.X, b64.Actions)
			if err != nil {
				t.Fatal(err)
			}
			l32, err := e32.SFTLossAndGrad(f32, m32, b32.X, b32.Actions)
			if err != nil {
				t.Fatal(err)
			}
			if !near(l32, l64, 1e-5, 1e-5) {
				t.Errorf("sft loss float32 %v, float64 %v", l32, l64)
			}
			for j := range f64 {
				if !near(float64(f32[j]), f64[j], 1e-5, 1e-4) {
					t.Errorf("sft grad[%d] float32 %v, float64 %v", j, f32[j], f64[j])
				}
			}
		})
	}
}

// TestGraphReuse runs one engine on several batches: each answer must be
// the reference's for that batch (a stale input or output buffer would
// repeat the previous answer), a second size must get its own graph, and
// going back to the first size must reproduce the first answer bit for bit.
func TestGraphReuse(t *testing.T) {
	sizes := []int{5, 7, 3}
	e := newEngine[float64](t, sizes, nn.Tanh, testLoss)
	m := randomModel(sizes, nn.Tanh, 11)
	run := func(b *nn.Batch[float64]) (nn.LossStats, []float64) {
		t.Helper()
		grad := make([]float64, len(m.Params))
		st, err := e.LossAndGrad(grad, m, b)
		if err != nil {
			t.Fatal(err)
		}
		checkStats(t, st, refLoss(sizes, nn.Tanh, testLoss, m.Params, b), 1e-12)
		checkGrad(t, sizes, grad, fdGrad(m.Params, func(p []float64) float64 {
			return refLoss(sizes, nn.Tanh, testLoss, p, b).Loss
		}))
		return st, grad
	}
	b1, b2, b3 := randomBatch(m, testLoss, 12, 1), randomBatch(m, testLoss, 12, 2), randomBatch(m, testLoss, 9, 3)
	s1, g1 := run(b1)
	s2, g2 := run(b2)
	if s1 == s2 || slices.Equal(g1, g2) {
		t.Errorf("two different batches gave the same answer: %+v", s1)
	}
	run(b3)
	if n := len(e.graphs); n != 2 {
		t.Errorf("%d cached graphs after two batch sizes, want 2", n)
	}
	s1again, g1again := run(b1)
	if s1again != s1 || !slices.Equal(g1again, g1) {
		t.Errorf("rerunning the first batch: %+v, first time %+v", s1again, s1)
	}
	if n := len(e.graphs); n != 2 {
		t.Errorf("%d cached graphs after reuse, want 2", n)
	}

	// A changed model reaches the graph too.
	m2 := m.Clone()
	for i := range m2.Params {
		m2.Params[i] *= 0.5
	}
	grad := make([]float64, len(m.Params))
	st, err := e.LossAndGrad(grad, m2, b1)
	if err != nil {
		t.Fatal(err)
	}
	checkStats(t, st, refLoss(sizes, nn.Tanh, testLoss, m2.Params, b1), 1e-12)
}

// TestBadInput feeds every kind of broken input and wants an error, not a
// panic and not a NaN.
func TestBadInput(t *testing.T) {
	sizes := []int{5, 7, 3}
	e := newEngine[float64](t, sizes, nn.Tanh, testLoss)
	m := randomModel(sizes, nn.Tanh, 12)
	good := randomBatch(m, testLoss, 12, 13)
	grad := make([]float64, len(m.Params))
	if _, err := e.LossAndGrad(grad, m, good); err != nil {
		t.Fatalf("good batch: %v", err)
	}
	edit := func(f func(b *nn.Batch[float64])) *nn.Batch[float64] {
		b := convertBatch[float64](good)
		f(b)
		return b
	}
	other := func(sizes []int, act nn.Activation) *nn.MLP[float64] { return randomModel(sizes, act, 1) }
	nanModel := m.Clone()
	nanModel.Params[3] = math.Inf(1)

	lossCases := []struct {
		name string
		grad []float64
		m    *nn.MLP[float64]
		b    *nn.Batch[float64]
	}{
		{"wrong feature width", grad, m, edit(func(b *nn.Batch[float64]) { b.X = make([]float64, 12*6) })},
		{"action 3", grad, m, edit(func(b *nn.Batch[float64]) { b.Actions[4] = 3 })},
		{"NaN feature", grad, m, edit(func(b *nn.Batch[float64]) { b.X[7] = math.NaN() })},
		{"NaN advantage", grad, m, edit(func(b *nn.Batch[float64]) { b.Adv[2] = math.NaN() })},
		{"Inf behaviour logprob", grad, m, edit(func(b *nn.Batch[float64]) { b.BehLogp[0] = math.Inf(-1) })},
		{"NaN reference logprob", grad, m, edit(func(b *nn.Batch[float64]) { b.RefLogp[5] = math.NaN() })},
		{"short RefLogp", grad, m, edit(func(b *nn.Batch[float64]) { b.RefLogp = b.RefLogp[:12] })},
		{"empty batch", grad, m, &nn.Batch[float64]{}},
		{"nil batch", grad, m, nil},
		{"short grad", grad[:len(grad)-1], m, good},
		{"nil grad", nil, m, good},
		{"nil model", grad, nil, good},
		{"model with other hidden size", grad, other([]int{5, 8, 3}, nn.Tanh), good},
		{"model with other input size", grad, other([]int{6, 7, 3}, nn.Tanh), good},
		{"model with other activation", grad, other(sizes, nn.ReLU), good},
		{"model with short params", grad, &nn.MLP[float64]{Sizes: sizes, Params: m.Params[:10]}, good},
		{"model with Inf param", grad, nanModel, good},
	}
	for _, c := range lossCases {
		t.Run("loss/"+c.name, func(t *testing.T) {
			before := slices.Clone(c.grad)
			if _, err := e.LossAndGrad(c.grad, c.m, c.b); err == nil {
				t.Error("no error")
			} else {
				t.Log(err)
			}
			if !slices.Equal(before, c.grad) {
				t.Error("grad written despite the error")
			}
		})
	}

	badSFT(t, e, m, good, grad)
	badForward(t, e, m, good)
}

// badSFT wants an error of SFTLossAndGrad for each broken input.
func badSFT(t *testing.T, e *Engine[float64], m *nn.MLP[float64], good *nn.Batch[float64], grad []float64) {
	sftCases := []struct {
		name    string
		grad    []float64
		m       *nn.MLP[float64]
		x       []float64
		actions []uint8
	}{
		{"wrong feature width", grad, m, good.X[:5*11], good.Actions},
		{"action 3", grad, m, good.X, append(slices.Clone(good.Actions[:11]), 3)},
		{"NaN feature", grad, m, append([]float64{math.NaN()}, good.X[1:]...), good.Actions},
		{"empty", grad, m, nil, nil},
		{"short grad", grad[:3], m, good.X, good.Actions},
		{"model with other sizes", grad, randomModel([]int{5, 8, 3}, nn.Tanh, 1), good.X, good.Actions},
	}
	for _, c := range sftCases {
		t.Run("sft/"+c.name, func(t *testing.T) {
			if _, err := e.SFTLossAndGrad(c.grad, c.m, c.x, c.actions); err == nil {
				t.Error("no error")
			} else {
				t.Log(err)
			}
		})
	}
}

// badForward wants an error of Forward for each broken input.
func badForward(t *testing.T, e *Engine[float64], m *nn.MLP[float64], good *nn.Batch[float64]) {
	fwdCases := []struct {
		name      string
		logits, x []float64
		m         *nn.MLP[float64]
	}{
		{"ragged features", make([]float64, 6), good.X[:7], m},
		{"no rows", nil, nil, m},
		{"short logits", make([]float64, 5), good.X[:10], m},
		{"NaN feature", make([]float64, 3), []float64{1, 2, math.NaN(), 4, 5}, m},
		{"model with other sizes", make([]float64, 3), good.X[:5], randomModel([]int{5, 8, 3}, nn.Tanh, 1)},
	}
	for _, c := range fwdCases {
		t.Run("forward/"+c.name, func(t *testing.T) {
			if err := e.Forward(c.logits, c.m, c.x); err == nil {
				t.Error("no error")
			} else {
				t.Log(err)
			}
		})
	}
}

func TestNewRejects(t *testing.T) {
	for _, c := range []struct {
		name  string
		sizes []int
		act   nn.Activation
		cfg   nn.LossConfig
	}{
		{"one size", []int{3}, nn.Tanh, testLoss},
		{"zero width", []int{5, 0, 3}, nn.Tanh, testLoss},
		{"four actions", []int{5, 7, 4}, nn.Tanh, testLoss},
		{"unknown activation", []int{5, 7, 3}, nn.Activation(7), testLoss},
		{"eps_low 1", []int{5, 7, 3}, nn.Tanh, nn.LossConfig{EpsLow: 1}},
		{"negative beta", []int{5, 7, 3}, nn.Tanh, nn.LossConfig{Beta: -1}},
	} {
		if _, err := New[float32](c.sizes, c.act, c.cfg); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestClose(t *testing.T) {
	sizes := []int{5, 7, 3}
	e := newEngine[float32](t, sizes, nn.Tanh, testLoss)
	m := nn.Convert[float32](randomModel(sizes, nn.Tanh, 1))
	lg := make([]float32, 3)
	if err := e.Forward(lg, m, make([]float32, 5)); err != nil {
		t.Fatal(err)
	}
	if err := e.Close(); err != nil {
		t.Fatal(err)
	}
	if err := e.Forward(lg, m, make([]float32, 5)); !errors.Is(err, ErrClosed) {
		t.Errorf("Forward after Close: %v, want ErrClosed", err)
	}
	if _, err := e.SFTLossAndGrad(make([]float32, len(m.Params)), m, make([]float32, 5), []uint8{1}); !errors.Is(err, ErrClosed) {
		t.Errorf("SFTLossAndGrad after Close: %v, want ErrClosed", err)
	}
}

// TestConcurrentCalls shares one engine between goroutines (run with -race).
func TestConcurrentCalls(t *testing.T) {
	sizes := []int{5, 7, 3}
	e := newEngine[float64](t, sizes, nn.Tanh, testLoss)
	m := randomModel(sizes, nn.Tanh, 14)
	errc := make(chan error, 4)
	for w := range 4 {
		go func() {
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			b := randomBatch(m, testLoss, 8+w%2, rng.Uint64())
			want := refLoss(sizes, nn.Tanh, testLoss, m.Params, b)
			grad := make([]float64, len(m.Params))
			for range 5 {
				st, err := e.LossAndGrad(grad, m, b)
				if err == nil && !near(st.Loss, want.Loss, 1e-12, 1e-12) {
					err = fmt.Errorf("worker %d: loss %v, want %v", w, st.Loss, want.Loss)
				}
				if err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
	}
	for range 4 {
		if err := <-errc; err != nil {
			t.Error(err)
		}
	}
}

// TestBatchOfOne: a single row must work for every call (it runs as two
// copies of the row, see minRows) and give the reference's answer.
func TestBatchOfOne(t *testing.T) {
	for i, s := range shapes[:2] {
		t.Run(s.String(), func(t *testing.T) {
			e := newEngine[float64](t, s.sizes, s.act, testLoss)
			m := randomModel(s.sizes, s.act, uint64(110+i))
			for row := range 3 { // rows 0 and 1 are clipped high and low
				b := randomBatch(m, testLoss, 3, uint64(120+i))
				b = &nn.Batch[float64]{
					X:       b.X[row*s.sizes[0] : (row+1)*s.sizes[0]],
					Actions: b.Actions[row : row+1],
					Adv:     b.Adv[row : row+1],
					BehLogp: b.BehLogp[row : row+1],
					RefLogp: b.RefLogp[row*nn.NumActions : (row+1)*nn.NumActions],
				}
				grad := make([]float64, len(m.Params))
				st, err := e.LossAndGrad(grad, m, b)
				if err != nil {
					t.Fatal(err)
				}
				checkStats(t, st, refLoss(s.sizes, s.act, testLoss, m.Params, b), 1e-12)
				checkGrad(t, s.sizes, grad, fdGrad(m.Params, func(p []float64) float64 {
					return refLoss(s.sizes, s.act, testLoss, p, b).Loss
				}))
				sft, err := e.SFTLossAndGrad(grad, m, b.X, b.Actions)
				if err != nil {
					t.Fatal(err)
				}
				if want := refSFT(s.sizes, s.act, m.Params, b.X, b.Actions); !near(sft, want, 1e-12, 1e-12) {
					t.Errorf("sft loss %v, want %v", sft, want)
				}
				lg := make([]float64, nn.NumActions)
				if err := e.Forward(lg, m, b.X); err != nil {
					t.Fatal(err)
				}
				for a, want := range refLogits(s.sizes, s.act, m.Params, b.X) {
					if !near(lg[a], want, 1e-12, 1e-12) {
						t.Errorf("logit %d = %v, want %v", a, lg[a], want)
					}
				}
			}
		})
	}
}

// TestOddShapes covers widths of one and a network without hidden layer at
// batches of 1 to 3: Gorgonia special-cases shapes with a dimension of one
// (vectors, scalars), and a shape error at run time would surface as a panic
// on the machine's own goroutine, which nobody can recover.
func TestOddShapes(t *testing.T) {
	for _, sizes := range [][]int{{1, 4, 3}, {4, 1, 3}, {1, 1, 3}, {2, 3}, {4, 1, 1, 3}} {
		for _, B := range []int{1, 2, 3} {
			t.Run(fmt.Sprintf("sizes=%v/batch=%d", sizes, B), func(t *testing.T) {
				e := newEngine[float64](t, sizes, nn.Tanh, testLoss)
				m := randomModel(sizes, nn.Tanh, 1)
				b := randomBatch(m, testLoss, B, 2)
				g := make([]float64, len(m.Params))
				st, err := e.LossAndGrad(g, m, b)
				if err != nil {
					t.Fatal(err)
				}
				checkStats(t, st, refLoss(sizes, nn.Tanh, testLoss, m.Params, b), 1e-12)
				checkGrad(t, sizes, g, fdGrad(m.Params, func(p []float64) float64 {
					return refLoss(sizes, nn.Tanh, testLoss, p, b).Loss
				}))
				sft, err := e.SFTLossAndGrad(g, m, b.X, b.Actions)
				if err != nil {
					t.Fatal(err)
				}
				if want := refSFT(sizes, nn.Tanh, m.Params, b.X, b.Actions); !near(sft, want, 1e-12, 1e-12) {
					t.Errorf("sft loss %v, want %v", sft, want)
				}
				if err := e.Forward(make([]float64, B*nn.NumActions), m, b.X); err != nil {
					t.Fatal(err)
				}
			})
		}
	}
}
