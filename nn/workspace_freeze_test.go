package nn

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// A frozen MLP's weights are copied once: its forward passes give the
// bits of unfrozen ones, another MLP's pass in between is reloaded both
// ways, and a change to the frozen MLP's parameters goes unseen until
// Freeze is called again (the promise Freeze asks for).
func TestWorkspaceFreeze(t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[float32]) {
		rng := rand.New(rand.NewPCG(31, 32))
		sizes := []int{26, 64, 64, NumActions}
		m, other := randModel[float32](rng, sizes, Tanh), randModel[float32](rng, sizes, Tanh)
		ws, err := newWorkspace(sizes, Tanh, 64, 1, k)
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		x := make([]float32, 3*sizes[0])
		for i := range x {
			x[i] = float32(rng.NormFloat64())
		}
		pass := func(m *MLP[float32]) []float32 {
			out := make([]float32, 3*NumActions)
			ws.LogProbsTo(out, m, x)
			return out
		}
		want, wantOther := pass(m), pass(other)
		ws.Freeze(m)
		for i, c := range []struct {
			m    *MLP[float32]
			want []float32
		}{{m, want}, {m, want}, {other, wantOther}, {m, want}} {
			if got := pass(c.m); !slices.Equal(got, c.want) {
				t.Fatalf("pass %d: %v, want %v", i, got, c.want)
			}
		}
		grad := make([]float32, len(m.Params))
		ws.LossAndGrad(grad, other, randBatch(rng, other, 5), DefaultLoss())
		if got := pass(m); !slices.Equal(got, want) {
			t.Fatalf("after another MLP's step: %v, want %v", got, want)
		}
		for i := range m.Params {
			m.Params[i] *= 1.5
		}
		if got := pass(m); !slices.Equal(got, want) {
			t.Errorf("frozen: a change of the parameters was seen: %v, want the old %v", got, want)
		}
		ws.Freeze(m)
		changed := pass(m)
		if slices.Equal(changed, want) {
			t.Fatal("Freeze again: the changed parameters were not loaded")
		}
		ws.Freeze(nil)
		ref := make([]float32, 3*NumActions)
		for r := range 3 {
			m.Logits(ref[r*NumActions:(r+1)*NumActions], x[r*sizes[0]:(r+1)*sizes[0]])
			LogSoftmaxTo(ref[r*NumActions:(r+1)*NumActions], ref[r*NumActions:(r+1)*NumActions])
		}
		for i := range ref {
			if math.Abs(float64(changed[i]-ref[i])) > 1e-4 {
				t.Fatalf("after Freeze again: log-prob %d = %v, reference %v", i, changed[i], ref[i])
			}
		}
	})
}
