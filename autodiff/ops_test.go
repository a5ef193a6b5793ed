package autodiff

import (
	"math"
	"slices"
	"testing"

	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// evalOp builds f(x, y) on a tiny float64 graph and returns f's value and
// the gradient of Σ f with respect to x and y. Kinks and ties have measure
// zero in the loss tests; here they are hit on purpose.
func evalOp(t *testing.T, x, y []float64, f func(bl *builder, x, y *G.Node) *G.Node) (val, dx, dy []float64) {
	return eval(t, x, y, f, true)
}

// evalUnary is evalOp for an f of x alone; it returns f(x) and dΣf/dx.
func evalUnary(t *testing.T, x []float64, f func(bl *builder, x *G.Node) *G.Node) (val, dx []float64) {
	val, dx, _ = eval(t, x, make([]float64, len(x)), func(bl *builder, x, _ *G.Node) *G.Node { return f(bl, x) }, false)
	return val, dx
}

func eval(t *testing.T, x, y []float64, f func(bl *builder, x, y *G.Node) *G.Node, binary bool) (val, dx, dy []float64) {
	t.Helper()
	n := len(x)
	bl := &builder{g: G.NewGraph(), dt: tensor.Float64, batch: n}
	xb, yb := buffer{f64: slices.Clone(x)}, buffer{f64: slices.Clone(y)}
	xn, yn := bl.input(xb, "x", n), bl.input(yb, "y", n)
	out := f(bl, xn, yn)
	wrt := G.Nodes{xn}
	if binary {
		wrt = append(wrt, yn)
	}
	grads, err := G.Grad(G.Must(G.Sum(out)), wrt...)
	if err != nil {
		t.Fatal(err)
	}
	vb, dxb, dyb := buffer{f64: make([]float64, n)}, buffer{f64: make([]float64, n)}, buffer{f64: make([]float64, n)}
	bl.readInto(out, vb, n)
	bl.readInto(grads[0], dxb, n)
	if binary {
		bl.readInto(grads[1], dyb, n)
	}
	gr := &graph{g: bl.g}
	if err := gr.compile(); err != nil {
		t.Fatal(err)
	}
	defer gr.vm.Close()
	if err := gr.run(); err != nil {
		t.Fatal(err)
	}
	return vb.f64, dxb.f64, dyb.f64
}

func wantSlice(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if !slices.Equal(got, want) {
		t.Errorf("%s = %v, want %v", name, got, want)
	}
}

// TestMinimumTies: torch.minimum's gradient goes to the smaller argument
// and is split half/half on a tie.
func TestMinimumTies(t *testing.T) {
	v, dx, dy := evalOp(t, []float64{1, 2, 3, -4}, []float64{2, 2, 1, -4},
		func(bl *builder, x, y *G.Node) *G.Node { return bl.minimum(x, y) })
	wantSlice(t, "min", v, []float64{1, 2, 1, -4})
	wantSlice(t, "dmin/dx", dx, []float64{1, 0.5, 0, 0.5})
	wantSlice(t, "dmin/dy", dy, []float64{0, 0.5, 1, 0.5})
}

// TestClampBounds: torch.clamp passes the gradient where lo ≤ x ≤ hi,
// bounds included, and blocks it outside.
func TestClampBounds(t *testing.T) {
	x := []float64{-3, -1, 0.5, 2, 5, -21, 20, 25}
	v, dx := evalUnary(t, x, func(bl *builder, x *G.Node) *G.Node { return bl.clamp(x, -1, 2) })
	wantSlice(t, "clamp", v, []float64{-1, -1, 0.5, 2, 2, -1, 2, 2})
	wantSlice(t, "dclamp/dx", dx, []float64{0, 1, 1, 1, 0, 0, 0, 0})

	// The ratio clamp of the loss, at ±20.
	v, dx = evalUnary(t, x, func(bl *builder, x *G.Node) *G.Node { return bl.clamp(x, -20, 20) })
	wantSlice(t, "clamp20", v, []float64{-3, -1, 0.5, 2, 5, -20, 20, 20})
	wantSlice(t, "dclamp20/dx", dx, []float64{1, 1, 1, 1, 1, 0, 1, 0})
}

// TestReLUAtZero: torch.relu's gradient is 0 at 0.
func TestReLUAtZero(t *testing.T) {
	v, dx := evalUnary(t, []float64{-1, 0, 2}, func(bl *builder, x *G.Node) *G.Node { return bl.relu(x) })
	wantSlice(t, "relu", v, []float64{0, 0, 2})
	wantSlice(t, "drelu/dx", dx, []float64{0, 0, 1})
}

// TestLogSoftmaxTiesAndExtremes: the row maximum may be tied or far from
// the other logits; log softmax and its gradient stay exact.
func TestLogSoftmaxTiesAndExtremes(t *testing.T) {
	// Two actions x and y, logits [x, y, 0]; gradient of Σ log π(x-action).
	x := []float64{0, 3, 800, -800}
	y := []float64{0, 3, 0, 0}
	v, dx, dy := evalOp(t, x, y, func(bl *builder, x, y *G.Node) *G.Node {
		zero := bl.mul(y, bl.scalar(0)) // a (B) zero vector
		return bl.logSoftmax([]*G.Node{x, y, zero})[0]
	})
	for i := range x {
		want := refLogSoftmax([]float64{x[i], y[i], 0})
		// d log π0 / d l0 = 1 − π0, d log π0 / d l1 = −π1.
		p0, p1 := math.Exp(want[0]), math.Exp(want[1])
		if !near(v[i], want[0], 1e-12, 1e-12) || !near(dx[i], 1-p0, 1e-12, 1e-12) || !near(dy[i], -p1, 1e-12, 1e-12) {
			t.Errorf("row %d: log π0 %v d/dx %v d/dy %v, want %v %v %v", i, v[i], dx[i], dy[i], want[0], 1-p0, -p1)
		}
	}
}
