package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// guardLen is the number of NaNs kept on each side of an output slice.
const guardLen = 37

// guarded returns a slice of n zeros with NaN guard bands on both sides and
// a function that fails t if a guard was written.
func guarded[T Float](t *testing.T, name string, n int) ([]T, func()) {
	t.Helper()
	buf := make([]T, n+2*guardLen)
	nan := T(math.NaN())
	for i := range buf {
		buf[i] = nan
	}
	s := buf[guardLen : guardLen+n : guardLen+n]
	clear(s)
	return s, func() {
		t.Helper()
		for i, v := range buf {
			if (i < guardLen || i >= guardLen+n) && !math.IsNaN(float64(v)) {
				t.Errorf("%s: guard element %d written: %v", name, i-guardLen, v)
				return
			}
		}
	}
}

// randSizes returns in → 0..2 random hidden widths → out. Hidden widths
// straddle the vector widths (8, 16) and include the target 64.
func randSizes(rng *rand.Rand, in, out int) []int {
	sizes := []int{in}
	widths := []int{1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 47, 64, 65}
	for range rng.IntN(3) {
		sizes = append(sizes, widths[rng.IntN(len(widths))])
	}
	return append(sizes, out)
}

func randModel[T Float](rng *rand.Rand, sizes []int, act Activation) *MLP[T] {
	m, err := NewMLP[T](sizes, act)
	if err != nil {
		panic(err)
	}
	// Weights twice PyTorch's default so that tanh saturates on some units.
	for i := range m.Params {
		m.Params[i] = T((2*rng.Float64() - 1) * 2 / math.Sqrt(float64(sizes[0])))
	}
	return m
}

// randBatch returns n rows for m whose ratios ρ fall inside the clip range,
// beyond it on both sides, and beyond the ±20 clamp of the log-ratio; some
// advantages are exactly zero.
func randBatch[T Float](rng *rand.Rand, m *MLP[T], n int) *Batch[T] {
	in := m.In()
	b := &Batch[T]{
		X:       make([]T, n*in),
		Actions: make([]uint8, n),
		Adv:     make([]T, n),
		BehLogp: make([]T, n),
		RefLogp: make([]T, n*NumActions),
	}
	for i := range b.X {
		b.X[i] = T(rng.NormFloat64())
	}
	logits := make([]T, n*NumActions)
	ForwardRef(logits, m, b.X)
	lp := make([]float64, NumActions)
	z := make([]float64, NumActions)
	for r := 0; r < n; r++ {
		for j := range z {
			z[j] = float64(logits[r*NumActions+j])
		}
		LogSoftmaxTo(lp, z)
		a := rng.IntN(NumActions)
		b.Actions[r] = uint8(a)
		switch rng.IntN(10) {
		case 0:
			b.BehLogp[r] = T(lp[a] + 25) // ℓ < −20
		case 1:
			b.BehLogp[r] = T(lp[a] - 25) // ℓ > 20
		default:
			b.BehLogp[r] = T(lp[a] + 0.3*rng.NormFloat64())
		}
		if rng.IntN(10) > 0 {
			b.Adv[r] = T(rng.NormFloat64())
		}
		for j := range z {
			z[j] += 0.5 * rng.NormFloat64()
		}
		LogSoftmaxTo(lp, z)
		for j, v := range lp {
			b.RefLogp[r*NumActions+j] = T(v)
		}
	}
	if err := b.Check(in); err != nil {
		panic(err)
	}
	return b
}

// tolerance returns the relative and absolute tolerances of a comparison
// with a float64 reference: accumulation order and tanh32 in float32.
func tolerance[T Float]() (rel, abs float64) {
	var z T
	if _, ok := any(z).(float64); ok {
		return 1e-9, 1e-11
	}
	return 2e-3, 2e-4
}

// closeTo fails t if got and want differ beyond rel·|want| + abs·max|want|.
func closeTo[T Float](t *testing.T, name string, got, want []T, rel, abs float64) {
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
				t.Errorf("%s[%d] = %v, want %v (scale %.3g)", name, i, g, w, scale)
			}
			bad++
		}
	}
	if bad > 5 {
		t.Errorf("%s: %d of %d elements differ", name, bad, len(want))
	}
}

func typeName[T Float]() string {
	var z T
	return fmt.Sprintf("%T", z)
}

// closeStats compares the loss statistics of a kernel with the reference's:
// to 1e-5 relative, 1e-10 when rel (the gradient's tolerance) is below 1e-6
// (float64).
func closeStats(t *testing.T, name string, got, want LossStats, rel float64) {
	t.Helper()
	sr := 1e-5
	if rel < 1e-6 {
		sr = 1e-10
	}
	for _, f := range []struct {
		name      string
		got, want float64
	}{
		{"loss", got.Loss, want.Loss},
		{"policy_loss", got.PolicyLoss, want.PolicyLoss},
		{"kl", got.KL, want.KL},
		{"entropy", got.Entropy, want.Entropy},
	} {
		if !(math.Abs(f.got-f.want) <= sr*(1+math.Abs(f.want))) {
			t.Errorf("%s: %s = %v, want %v", name, f.name, f.got, f.want)
		}
	}
}
