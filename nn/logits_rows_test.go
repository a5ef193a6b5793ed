package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestLogitsRowsIsLogits: the batched decision-time forward pass gives every
// row's logits bit for bit as Logits does one row at a time, on every
// kernel set this CPU runs and the portable loop, for both activations and
// precisions, row counts that fill panels and leave spare lanes, widths that
// are and are not multiples of the output blocks, a reused scratch buffer,
// and no write outside dst.
func TestLogitsRowsIsLogits(t *testing.T) {
	t.Run("float32", func(t *testing.T) { testLogitsRows[float32](t) })
	t.Run("float64", func(t *testing.T) { testLogitsRows[float64](t) })
}

func testLogitsRows[T Float](t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 23))
	shapes := [][]int{{38, 64, 64, 3}, {32, 64, 64, 3}, {5, 3}, {1, 1}}
	for range 12 {
		shapes = append(shapes, randSizes(rng, 1+rng.IntN(40), 1+rng.IntN(6)))
	}
	for _, ps := range panelSets() {
		name := "portable"
		if ps != nil {
			name = ps.name
		}
		t.Run(name, func(t *testing.T) { testLogitsRowsOn[T](t, ps, rng, shapes) })
	}
}

func testLogitsRowsOn[T Float](t *testing.T, ps *panelSet, rng *rand.Rand, shapes [][]int) {
	var buf []float64
	for _, sizes := range shapes {
		for _, act := range []Activation{Tanh, ReLU} {
			m := randModel[T](rng, sizes, act)
			for _, rows := range []int{0, 1, 3, 4, 5, 8, 9, 17, 64} {
				name := fmt.Sprintf("%v/%v/rows=%d", sizes, act, rows)
				x := make([]T, rows*m.In())
				for i := range x {
					x[i] = T(4 * (rng.Float64() - 0.5))
				}
				got, check := guarded[T](t, name, rows*m.Out())
				buf = m.logitsRows(ps, got, x, buf)
				check()
				want := make([]T, m.Out())
				for r := range rows {
					m.Logits(want, x[r*m.In():(r+1)*m.In()])
					for o, w := range want {
						if g := got[r*m.Out()+o]; math.Float64bits(float64(g)) != math.Float64bits(float64(w)) {
							t.Fatalf("%s: row %d logit %d = %v, Logits gives %v", name, r, o, g, w)
						}
					}
				}
			}
		}
	}
}

// TestLogitsRowsShape: rows that do not fit the network are a caller bug.
func TestLogitsRowsShape(t *testing.T) {
	m, _ := NewMLP[float32]([]int{4, 3}, Tanh)
	for _, c := range []struct{ dst, x int }{{3, 5}, {2, 4}, {6, 4}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("len(dst)=%d len(x)=%d: no panic", c.dst, c.x)
				}
			}()
			m.LogitsRows(make([]float32, c.dst), make([]float32, c.x), nil)
		}()
	}
}

// BenchmarkLogitsRows: decision-time forward passes of the v2 network
// (38 features, 64×64 tanh, 3 actions), one call per decision (Logits) against
// one call per batch of decisions (LogitsRows) on each kernel set;
// ns/decision is per decision.
func BenchmarkLogitsRows(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	m := randModel[float32](rng, []int{38, 64, 64, 3}, Tanh)
	const rows = 256
	x := make([]float32, rows*m.In())
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	dst := make([]float32, rows*m.Out())
	b.Run("per-decision", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			r := i % rows
			m.Logits(dst[r*m.Out():(r+1)*m.Out()], x[r*m.In():(r+1)*m.In()])
		}
	})
	for _, ps := range panelSets() {
		name := "portable"
		if ps != nil {
			name = ps.name
		}
		for _, batch := range []int{1, 8, 64, 256} {
			b.Run(fmt.Sprintf("kernels=%s/batch=%d", name, batch), func(b *testing.B) {
				var buf []float64
				for i := 0; b.Loop(); i++ {
					r := (i * batch) % rows
					buf = m.logitsRows(ps, dst[r*m.Out():(r+batch)*m.Out()], x[r*m.In():(r+batch)*m.In()], buf)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*batch), "ns/decision")
			})
		}
	}
}
