package mpdf_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/nn"
)

// The kernels of package nn against the Gorgonia graph of package autodiff:
// logits, loss statistics, gradients (SoftRankPO and supervised) and the
// parameters after an Adam step, on random shapes and batch sizes that are
// not multiples of any vector width, in float32 and float64. Run it in both
// builds: by default it checks the AVX-512 or AVX2 assembly on amd64, with
// -tags noasm the portable kernels. Every output slice has NaN guard bands.
//
// Tolerances, relative to |want| plus a share of the largest |want| of the
// slice (accumulation order differs, and float32 tanh is tanh32):
//
//	float64  1e-9·|want| + 1e-11·max      stats 1e-9
//	float32  2e-3·|want| + 2e-4·max       stats 1e-4
//
// Adam's first step moves each weight by about ±lr whatever |g| is, so the
// parameters after a step must agree to 1e-3·lr plus a few ulps wherever
// the gradient's sign is well determined (|g| above 1e-3·max|g|), and within
// the 2·lr a sign flip costs elsewhere.

var kernelShapes = []struct {
	sizes []int
	act   nn.Activation
}{
	{[]int{32, 64, 64, nn.NumActions}, nn.Tanh}, // the target model
	{[]int{7, 33, nn.NumActions}, nn.ReLU},
	{[]int{17, nn.NumActions}, nn.Tanh},
	{[]int{5, 9, 17, nn.NumActions}, nn.ReLU},
}

var kernelBatches = []int{1, 7, 33, 257}

func TestKernelsMatchGorgonia(t *testing.T) {
	testKernelsMatchGorgonia[float32](t)
	testKernelsMatchGorgonia[float64](t)
}

func testKernelsMatchGorgonia[T nn.Float](t *testing.T) {
	rel, abs, statTol := 2e-3, 2e-4, 1e-4
	var z T
	if _, ok := any(z).(float64); ok {
		rel, abs, statTol = 1e-9, 1e-11, 1e-9
	}
	cfg := nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.05, Entropy: 0.01}
	rng := rand.New(rand.NewPCG(2025, 9))
	for _, sh := range kernelShapes {
		name := fmt.Sprintf("%T/%s/sizes=%v/%v", z, nn.KernelName[T](), sh.sizes, sh.act)
		t.Run(name, func(t *testing.T) {
			eng, err := autodiff.New[T](sh.sizes, sh.act, cfg)
			if err != nil {
				t.Fatal(err)
			}
			defer eng.Close()
			ws, err := nn.NewWorkspace[T](sh.sizes, sh.act, 512, 2)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			m := kernelModel[T](rng, sh.sizes, sh.act)
			np := len(m.Params)
			for _, n := range kernelBatches {
				b := kernelBatch(rng, m, n)
				where := fmt.Sprintf("batch=%d", n)

				// Logits.
				want := make([]T, n*nn.NumActions)
				if err := eng.Forward(want, m, b.X); err != nil {
					t.Fatal(err)
				}
				got, check := guardedSlice[T](t, where+": logits", n*nn.NumActions)
				ws.ForwardTo(got, m, b.X)
				check()
				compareSlices(t, where+": logits", got, want, rel, abs)

				// SoftRankPO loss and gradient.
				gWant := make([]T, np)
				stWant, err := eng.LossAndGrad(gWant, m, b)
				if err != nil {
					t.Fatal(err)
				}
				gGot, check := guardedSlice[T](t, where+": grad", np)
				stGot := ws.LossAndGrad(gGot, m, b, cfg)
				check()
				compareSlices(t, where+": grad", gGot, gWant, rel, abs)
				compareStats(t, where, stGot, stWant, statTol, n)

				// One Adam step from each gradient.
				const lr = 1e-3
				pWant := append([]T(nil), m.Params...)
				nn.NewAdam[T](nn.DefaultAdam(), np).Update(pWant, gWant, lr)
				pGot, check := guardedSlice[T](t, where+": params", np)
				copy(pGot, m.Params)
				nn.NewAdam[T](nn.DefaultAdam(), np).UpdateFast(pGot, gGot, lr)
				check()
				compareAdamStep(t, where, pGot, pWant, gWant, lr)

				// Supervised loss and gradient.
				sWant := make([]T, np)
				lWant, err := eng.SFTLossAndGrad(sWant, m, b.X, b.Actions)
				if err != nil {
					t.Fatal(err)
				}
				sGot, check := guardedSlice[T](t, where+": sft grad", np)
				lGot := ws.SFTLossAndGrad(sGot, m, b.X, b.Actions)
				check()
				compareSlices(t, where+": sft grad", sGot, sWant, rel, abs)
				if !(math.Abs(lGot-lWant) <= statTol*(1+math.Abs(lWant))) {
					t.Errorf("%s: sft loss %v, want %v", where, lGot, lWant)
				}
			}
		})
	}
}

func compareStats(t *testing.T, where string, got, want nn.LossStats, tol float64, n int) {
	t.Helper()
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"loss", got.Loss, want.Loss},
		{"policy_loss", got.PolicyLoss, want.PolicyLoss},
		{"kl", got.KL, want.KL},
		{"entropy", got.Entropy, want.Entropy},
	} {
		if !(math.Abs(c.got-c.want) <= tol*(1+math.Abs(c.want))) {
			t.Errorf("%s: %s = %.10g, want %.10g", where, c.name, c.got, c.want)
		}
	}
	// A row within rounding of a clip bound may land on either side of it.
	slack := 0.0
	if tol > 1e-6 {
		slack = 1.01 / float64(n)
	}
	if math.Abs(got.ClipLow-want.ClipLow) > slack || math.Abs(got.ClipHigh-want.ClipHigh) > slack {
		t.Errorf("%s: clip ratios %v/%v, want %v/%v", where, got.ClipLow, got.ClipHigh, want.ClipLow, want.ClipHigh)
	}
}

func compareAdamStep[T nn.Float](t *testing.T, where string, got, want, grad []T, lr float64) {
	t.Helper()
	gmax := 0.0
	for _, g := range grad {
		gmax = max(gmax, math.Abs(float64(g)))
	}
	bad := 0
	for i := range want {
		w, g := float64(want[i]), float64(got[i])
		ulp := math.Nextafter(w, math.Inf(1)) - w
		if _, ok := any(want[i]).(float32); ok {
			ulp = float64(math.Nextafter32(float32(w), float32(math.Inf(1))) - float32(w))
		}
		tol := 4*ulp + 1e-3*lr
		if math.Abs(float64(grad[i])) < 1e-3*gmax {
			tol = 4*ulp + 2*lr
		}
		if !(math.Abs(g-w) <= tol) {
			if bad < 5 {
				t.Errorf("%s: param[%d] after Adam = %v, want %v (grad %v)", where, i, g, w, grad[i])
			}
			bad++
		}
	}
}

// guardedSlice returns n zeros between two bands of NaN, and a function that
// fails t if a band was written.
func guardedSlice[T nn.Float](t *testing.T, name string, n int) ([]T, func()) {
	const guard = 29
	buf := make([]T, n+2*guard)
	for i := range buf {
		buf[i] = T(math.NaN())
	}
	s := buf[guard : guard+n : guard+n]
	clear(s)
	return s, func() {
		t.Helper()
		for i, v := range buf {
			if (i < guard || i >= guard+n) && !math.IsNaN(float64(v)) {
				t.Errorf("%s: guard element %d written", name, i-guard)
				return
			}
		}
	}
}

func compareSlices[T nn.Float](t *testing.T, name string, got, want []T, rel, abs float64) {
	t.Helper()
	scale := 0.0
	for _, v := range want {
		scale = max(scale, math.Abs(float64(v)))
	}
	bad := 0
	for i := range want {
		g, w := float64(got[i]), float64(want[i])
		if !(math.Abs(g-w) <= rel*math.Abs(w)+abs*scale) {
			if bad < 5 {
				t.Errorf("%s[%d] = %v, want %v (max |want| %.3g)", name, i, g, w, scale)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements differ", name, bad, len(want))
	}
}

// kernelModel returns an MLP with weights twice PyTorch's default scale, so
// that some tanh units saturate.
func kernelModel[T nn.Float](rng *rand.Rand, sizes []int, act nn.Activation) *nn.MLP[T] {
	m, err := nn.NewMLP[T](sizes, act)
	if err != nil {
		panic(err)
	}
	for i := range m.Params {
		m.Params[i] = T((2*rng.Float64() - 1) * 2 / math.Sqrt(float64(sizes[0])))
	}
	return m
}

// kernelBatch returns n rows for m whose ratios ρ fall inside the clip range,
// beyond it on both sides, and beyond the ±20 clamp of the log-ratio; one
// advantage in ten is exactly zero.
func kernelBatch[T nn.Float](rng *rand.Rand, m *nn.MLP[T], n int) *nn.Batch[T] {
	in := m.In()
	b := &nn.Batch[T]{
		X:       make([]T, n*in),
		Actions: make([]uint8, n),
		Adv:     make([]T, n),
		BehLogp: make([]T, n),
		RefLogp: make([]T, n*nn.NumActions),
	}
	for i := range b.X {
		b.X[i] = T(rng.NormFloat64())
	}
	logits := make([]T, n*nn.NumActions)
	nn.ForwardRef(logits, m, b.X)
	z := make([]float64, nn.NumActions)
	lp := make([]float64, nn.NumActions)
	for r := 0; r < n; r++ {
		for j := range z {
			z[j] = float64(logits[r*nn.NumActions+j])
		}
		nn.LogSoftmaxTo(lp, z)
		a := rng.IntN(nn.NumActions)
		b.Actions[r] = uint8(a)
		switch rng.IntN(10) {
		case 0:
			b.BehLogp[r] = T(lp[a] + 25)
		case 1:
			b.BehLogp[r] = T(lp[a] - 25)
		default:
			b.BehLogp[r] = T(lp[a] + 0.3*rng.NormFloat64())
		}
		if rng.IntN(10) > 0 {
			b.Adv[r] = T(rng.NormFloat64())
		}
		for j := range z {
			z[j] += 0.5 * rng.NormFloat64()
		}
		nn.LogSoftmaxTo(lp, z)
		for j, v := range lp {
			b.RefLogp[r*nn.NumActions+j] = T(v)
		}
	}
	if err := b.Check(in); err != nil {
		panic(err)
	}
	return b
}
