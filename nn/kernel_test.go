package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

func TestGemmMatchesPlainLoop(t *testing.T) {
	testGemm[float32](t)
	testGemm[float64](t)
}

// testGemm checks every set's gemm against the defining sum on random
// shapes, both as C = A·B and as C += Aᵀ·B, and that it writes nothing of
// C outside the np×nj block (the rest of each row is NaN).
func testGemm[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		rng := rand.New(rand.NewPCG(21, 22))
		rel, _ := tolerance[T]()
		for trial := range 60 {
			np, n := 1+rng.IntN(13), 1+rng.IntN(70)
			nj := k.lanes * (1 + rng.IntN(9))
			ldc, ldb := nj+k.lanes*rng.IntN(2), nj+k.lanes*rng.IntN(2)
			acc, trans := trial%2 == 1, trial%3 == 0
			sp, st, la := n+rng.IntN(3), 1, 0 // A = np×n, row stride sp
			if trans {
				sp, st = 1, np+rng.IntN(3) // A = n×np, row stride st
				la = (n-1)*st + np
			} else {
				la = (np-1)*sp + n
			}
			a, b := make([]T, la), make([]T, (n-1)*ldb+nj)
			for i := range a {
				a[i] = T(rng.NormFloat64())
			}
			for i := range b {
				b[i] = T(rng.NormFloat64())
			}
			c := make([]T, (np-1)*ldc+nj+guardLen)
			for i := range c {
				c[i] = T(math.NaN())
			}
			want := make([]float64, np*nj)
			for p := range np {
				for j := range nj {
					s := 0.0
					if acc {
						c[p*ldc+j] = T(rng.NormFloat64())
						s = float64(c[p*ldc+j])
					}
					for q := range n {
						s += float64(a[p*sp+q*st]) * float64(b[q*ldb+j])
					}
					want[p*nj+j] = s
				}
			}
			k.gemm(c, ldc, a, sp, st, b, ldb, np, nj, n, acc)
			name := fmt.Sprintf("np=%d nj=%d n=%d ldc=%d acc=%v trans=%v", np, nj, n, ldc, acc, trans)
			for i, v := range c {
				p, j := i/ldc, i%ldc
				if p < np && j < nj {
					if w := want[p*nj+j]; !(math.Abs(float64(v)-w) <= rel*(1+math.Abs(w))) {
						t.Fatalf("%s: C[%d,%d] = %v, want %v", name, p, j, v, w)
					}
				} else if !math.IsNaN(float64(v)) {
					t.Fatalf("%s: C[%d] outside the block written: %v", name, i, v)
				}
			}
		}
	})
}

func TestDotMatchesPlainLoop(t *testing.T) {
	testDot[float32](t)
	testDot[float64](t)
}

// testDot checks the sets' dot kernels (the narrow output layer) against the
// defining sum plus the bias, and that they write no column of C past out rounded to 4.
func testDot[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		if k.dot == nil {
			t.Skip("no dot kernel")
		}
		rng := rand.New(rand.NewPCG(29, 30))
		rel, _ := tolerance[T]()
		for range 40 {
			rows, out, width := 1+rng.IntN(9), 1+rng.IntN(9), k.lanes*(1+rng.IntN(5))
			out4 := (out + 3) &^ 3
			ldc, ldh, ldw := out4+rng.IntN(5), width+k.lanes*rng.IntN(2), width+k.lanes*rng.IntN(2)
			h, w := make([]T, (rows-1)*ldh+width), make([]T, (out4-1)*ldw+width)
			for i := range h {
				h[i] = T(rng.NormFloat64())
			}
			for o := range out {
				for j := range width {
					w[o*ldw+j] = T(rng.NormFloat64())
				}
			}
			bias := make([]T, out4)
			for o := range out {
				bias[o] = T(rng.NormFloat64())
			}
			c := make([]T, rows*ldc)
			for i := range c {
				c[i] = T(math.NaN())
			}
			k.dot(c, ldc, h, ldh, w, ldw, rows, out, width, bias)
			for r := range rows {
				for o := range ldc {
					v := float64(c[r*ldc+o])
					if o >= out4 {
						if !math.IsNaN(v) {
							t.Fatalf("rows=%d out=%d width=%d: C[%d,%d] written past out", rows, out, width, r, o)
						}
						continue
					}
					want := float64(bias[o])
					for j := range width {
						want += float64(h[r*ldh+j]) * float64(w[o*ldw+j])
					}
					if !(math.Abs(v-want) <= rel*(1+math.Abs(want))) {
						t.Fatalf("rows=%d out=%d width=%d: C[%d,%d] = %v, want %v", rows, out, width, r, o, v, want)
					}
				}
			}
		}
	})
}

func TestGemmChecksBounds(t *testing.T) {
	for _, k := range kernelSetsFor[float32]() {
		L := k.lanes
		c, a, b := make([]float32, 2*L), make([]float32, 4), make([]float32, 2*L)
		for _, f := range []func(){
			func() { k.gemm(c[:2*L-1], L, a, 2, 1, b, L, 2, L, 2, false) }, // C short
			func() { k.gemm(c, L, a[:3], 2, 1, b, L, 2, L, 2, false) },     // A short
			func() { k.gemm(c, L, a, 2, 1, b[:2*L-1], L, 2, L, 2, false) }, // B short
			func() { k.gemm(c, L, a, 2, 1, b, L, 2, L, 0, false) },         // n = 0
		} {
			func() {
				defer func() {
					if r := recover(); r == nil {
						t.Errorf("%s: gemm with operands out of bounds did not panic", k.name)
					}
				}()
				f()
			}()
		}
	}
}

func TestTanh32(t *testing.T) {
	worst := 0.0
	for i := -2_000_000; i <= 2_000_000; i += 7 {
		x := float32(i) * 5e-6
		got := tanh32(x)
		worst = max(worst, math.Abs(float64(got)-math.Tanh(float64(x))))
		if got != -tanh32(-x) || got > 1 || got < -1 {
			t.Fatalf("tanh32(%v) = %v, tanh32(−x) = %v", x, got, tanh32(-x))
		}
	}
	if worst > 5e-7 {
		t.Errorf("tanh32 is %.3g from math.Tanh", worst)
	}
	for _, x := range []float32{100, float32(math.Inf(1))} {
		if y := tanh32(x); !(y > 0.99999 && y <= 1) {
			t.Errorf("tanh32(%v) = %v", x, y)
		}
	}
}

func TestElementwiseKernels(t *testing.T) {
	testElementwise[float32](t)
	testElementwise[float64](t)
}

// testElementwise checks biasAct, actGrad and colSum of every set against
// their definitions, the activations to 1e-6 (tanh32 and its reciprocal
// step in float32).
func testElementwise[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		rng := rand.New(rand.NewPCG(23, 24))
		rows, width := 13, 5*k.lanes
		ld := width + k.lanes
		h := make([]T, rows*ld)
		bias := make([]T, width)
		for i := range h {
			h[i] = T(4 * rng.NormFloat64())
		}
		for i := range bias {
			bias[i] = T(rng.NormFloat64())
		}
		for _, c := range []struct {
			act    Activation
			hidden bool
			f      func(float64) float64
		}{
			{Tanh, true, math.Tanh},
			{ReLU, true, func(x float64) float64 { return max(x, 0) }},
			{Tanh, false, func(x float64) float64 { return x }},
		} {
			got := append([]T(nil), h...)
			k.biasAct(got, ld, bias, rows, width, c.act, c.hidden)
			for i, v := range got {
				want := float64(h[i])
				if j := i % ld; j < width {
					want = c.f(float64(h[i] + bias[j]))
				}
				if !(math.Abs(float64(v)-want) <= 1e-6*(1+math.Abs(want))) {
					t.Fatalf("biasAct %v hidden=%v: element %d = %v, want %v", c.act, c.hidden, i, v, want)
				}
			}
		}

		d := make([]T, rows*ld)
		act := make([]T, rows*ld)
		for i := range d {
			d[i] = T(rng.NormFloat64())
			act[i] = T(math.Tanh(rng.NormFloat64()))
		}
		act[3] = 0 // relu' at 0 is 0
		for _, a := range []Activation{Tanh, ReLU} {
			got := append([]T(nil), d...)
			k.actGrad(got, act, a)
			for i, v := range got {
				want := float64(d[i]) * (1 - float64(act[i])*float64(act[i]))
				if a == ReLU {
					want = 0
					if act[i] > 0 {
						want = float64(d[i])
					}
				}
				if !(math.Abs(float64(v)-want) <= 1e-6*(1+math.Abs(want))) {
					t.Fatalf("actGrad %v: element %d = %v, want %v", a, i, v, want)
				}
			}
		}

		sum := make([]T, width)
		for i := range sum {
			sum[i] = 1
		}
		k.colSum(sum, d, ld, rows, width)
		for j, v := range sum {
			want := 1.0
			for r := range rows {
				want += float64(d[r*ld+j])
			}
			if !(math.Abs(float64(v)-want) <= 1e-5*(1+math.Abs(want))) {
				t.Fatalf("colSum: column %d = %v, want %v", j, v, want)
			}
		}
	})
}

func TestAdamKernelsMatchUpdate(t *testing.T) {
	testAdam[float32](t)
	testAdam[float64](t)
}

// testAdam runs five steps of every set's adam and of Adam.Update from the
// same state, on lengths around the vector widths, gradients spanning eight
// decades and some zeros, and compares parameters and moments.
func testAdam[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		rng := rand.New(rand.NewPCG(25, 26))
		rel, _ := tolerance[T]()
		rel = min(rel, 1e-5)
		for _, n := range []int{1, 7, 16, 17, 6467} {
			ref := NewAdam[T](DefaultAdam(), n)
			fast := NewAdam[T](DefaultAdam(), n)
			pRef := make([]T, n)
			for i := range pRef {
				pRef[i] = T(rng.NormFloat64())
			}
			pFast, check := guarded[T](t, "params", n)
			copy(pFast, pRef)
			g := make([]T, n)
			mScale := make([]float64, n)
			for step := range 5 {
				for i := range g {
					g[i] = T(rng.NormFloat64() * math.Pow(10, -float64(rng.IntN(8))))
					if rng.IntN(10) == 0 {
						g[i] = 0
					}
				}
				mPrev := append([]T(nil), ref.M...)
				lr := 1e-3 * float64(step+1)
				ref.Update(pRef, g, lr)
				fast.Step++
				k.adam(pFast, g, fast.M, fast.V, adamCoefs(fast.Config, fast.Step, lr))
				check()
				for i := range pRef {
					if d := math.Abs(float64(pFast[i] - pRef[i])); !(d <= 1e-5*lr+4*ulp(pRef[i])) {
						t.Fatalf("n=%d step %d: param %d = %v, want %v", n, step, i, pFast[i], pRef[i])
					}
					// m = β1·m + (1−β1)·g may cancel: its error scales with the
					// largest terms it has summed so far.
					mScale[i] = max(mScale[i], math.Abs(float64(mPrev[i]))+math.Abs(float64(g[i])))
					mTol := 2 * rel * mScale[i]
					if d := math.Abs(float64(fast.M[i] - ref.M[i])); !(d <= mTol) {
						t.Fatalf("n=%d step %d: m[%d] = %v, want %v", n, step, i, fast.M[i], ref.M[i])
					}
					if d := math.Abs(float64(fast.V[i] - ref.V[i])); !(d <= rel*float64(ref.V[i])) {
						t.Fatalf("n=%d step %d: v[%d] = %v, want %v", n, step, i, fast.V[i], ref.V[i])
					}
				}
			}
		}
	})
}

func TestUpdateFastMatchesUpdate(t *testing.T) {
	rng := rand.New(rand.NewPCG(27, 28))
	ref := NewAdam[float32](DefaultAdam(), 100)
	fast := NewAdam[float32](DefaultAdam(), 100)
	p := make([]float32, 100)
	q := make([]float32, 100)
	g := make([]float32, 100)
	for step := range 3 {
		for i := range g {
			g[i] = float32(rng.NormFloat64())
		}
		ref.Update(p, g, 0.01)
		fast.UpdateFast(q, g, 0.01)
		for i := range p {
			if d := math.Abs(float64(p[i] - q[i])); d > 1e-7+4*ulp(p[i]) {
				t.Fatalf("step %d: param %d = %v, want %v", step, i, q[i], p[i])
			}
		}
	}
	if fast.Step != ref.Step {
		t.Errorf("Step = %d, want %d", fast.Step, ref.Step)
	}
}

// ulp is the distance from x to the next larger value of its type.
func ulp[T Float](x T) float64 {
	if _, ok := any(x).(float32); ok {
		f := float32(x)
		return float64(math.Nextafter32(f, float32(math.Inf(1))) - f)
	}
	f := float64(x)
	return math.Nextafter(f, math.Inf(1)) - f
}

func TestFirstNonFinite(t *testing.T) {
	testFirstNonFinite[float32](t)
	testFirstNonFinite[float64](t)
}

func testFirstNonFinite[T Float](t *testing.T) {
	for _, n := range []int{0, 1, 7, 31, 32, 33, 100, 257} {
		s := make([]T, n)
		for i := range s {
			s[i] = T(i) - 50
		}
		if got := FirstNonFinite(s); got != -1 {
			t.Errorf("%T n=%d finite: got %d, want -1", s[0:0], n, got)
		}
		for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
			for _, at := range []int{0, n / 2, n - 1} {
				if n == 0 {
					continue
				}
				s[at] = T(bad)
				if got := FirstNonFinite(s); got != at {
					t.Errorf("%T n=%d %v at %d: got %d", s[0:0], n, bad, at, got)
				}
				s[at] = 0
			}
		}
	}
}

// GradNorm of float32 values (a vector kernel on amd64) is their norm summed
// in float64, up to the order of the sum.
func TestGradNorm32(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 4))
	for _, n := range []int{0, 1, 15, 16, 17, 64, 100, 6531} {
		g := make([]float32, n)
		want := 0.0
		for i := range g {
			g[i] = float32(rng.NormFloat64() * math.Exp(4*rng.NormFloat64()))
			want += float64(g[i]) * float64(g[i])
		}
		want = math.Sqrt(want)
		if got := GradNorm(g); math.Abs(got-want) > 1e-12*want {
			t.Errorf("n=%d: GradNorm %v, want %v", n, got, want)
		}
	}
	if got := GradNorm([]float32{1, 2, float32(math.NaN()), 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}); !math.IsNaN(got) {
		t.Errorf("a NaN gradient: GradNorm %v, want NaN", got)
	}
}
