package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"time"
)

// batchSizes include 1, sizes below and above a tile and the vector widths,
// and a size that splits unevenly between workers.
var batchSizes = []int{1, 7, 33, 65, 1000}

// forEachSet runs f on every kernel set this CPU and build have for T.
func forEachSet[T Float](t *testing.T, f func(t *testing.T, k *kernelSet[T])) {
	for _, k := range kernelSetsFor[T]() {
		t.Run(fmt.Sprintf("%s/%s", typeName[T](), k.name), func(t *testing.T) { f(t, k) })
	}
}

func TestLossAndGradMatchesRef(t *testing.T) {
	testLossAndGrad[float32](t)
	testLossAndGrad[float64](t)
}

func testLossAndGrad[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		rng := rand.New(rand.NewPCG(1, 2))
		rel, abs := tolerance[T]()
		for trial := range 6 {
			act := Activation(trial % 2)
			sizes := randSizes(rng, 1+rng.IntN(40), NumActions)
			if trial == 0 {
				sizes = []int{32, 64, 64, NumActions} // the target model
			}
			m := randModel[T](rng, sizes, act)
			threads := 1 + trial%3
			ws, err := newWorkspace(sizes, act, 1000, threads, k)
			if err != nil {
				t.Fatal(err)
			}
			spreadBlocks(ws, trial)
			cfg := LossConfig{EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.05 * float64(trial%3), Entropy: 0.01 * float64(trial%2)}
			for _, n := range batchSizes {
				name := fmt.Sprintf("sizes=%v/%v/threads=%d/batch=%d", sizes, act, threads, n)
				b := randBatch(rng, m, n)
				want := make([]T, len(m.Params))
				wantSt := LossAndGradRef(want, m, b, cfg)
				got, check := guarded[T](t, name+": grad", len(m.Params))
				for i := range got {
					got[i] = T(math.NaN()) // every element must be written
				}
				gotSt := ws.LossAndGrad(got, m, b, cfg)
				check()
				closeTo(t, name+": grad", got, want, rel, abs)
				closeStats(t, name, gotSt, wantSt, rel)
				// A row within float32 rounding of a clip bound may be counted
				// on either side; allow one such row.
				slack := 1.01 / float64(n)
				if rel < 1e-6 {
					slack = 0
				}
				if math.Abs(gotSt.ClipLow-wantSt.ClipLow) > slack || math.Abs(gotSt.ClipHigh-wantSt.ClipHigh) > slack {
					t.Errorf("%s: clip ratios %v/%v, want %v/%v", name, gotSt.ClipLow, gotSt.ClipHigh, wantSt.ClipLow, wantSt.ClipHigh)
				}
			}
			ws.Close()
		}
	})
}

func TestSFTLossAndGradMatchesRef(t *testing.T) {
	testSFT[float32](t)
	testSFT[float64](t)
}

func testSFT[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		rng := rand.New(rand.NewPCG(3, 4))
		rel, abs := tolerance[T]()
		for trial := range 4 {
			act := Activation(trial % 2)
			out := []int{NumActions, 1, 5, 17}[trial]
			sizes := randSizes(rng, 1+rng.IntN(40), out)
			m := randModel[T](rng, sizes, act)
			ws, err := newWorkspace(sizes, act, 1000, 2, k)
			if err != nil {
				t.Fatal(err)
			}
			spreadBlocks(ws, trial)
			for _, n := range batchSizes {
				name := fmt.Sprintf("sizes=%v/%v/batch=%d", sizes, act, n)
				x := make([]T, n*sizes[0])
				for i := range x {
					x[i] = T(rng.NormFloat64())
				}
				actions := make([]uint8, n)
				for i := range actions {
					actions[i] = uint8(rng.IntN(out))
				}
				want := make([]T, len(m.Params))
				wantLoss := SFTLossAndGradRef(want, m, x, actions)
				got, check := guarded[T](t, name+": grad", len(m.Params))
				gotLoss := ws.SFTLossAndGrad(got, m, x, actions)
				check()
				closeTo(t, name+": grad", got, want, rel, abs)
				if !(math.Abs(gotLoss-wantLoss) <= 1e-5*(1+wantLoss)) {
					t.Errorf("%s: loss %v, want %v", name, gotLoss, wantLoss)
				}
			}
			ws.Close()
		}
	})
}

func TestForwardToMatchesRef(t *testing.T) {
	testForward[float32](t)
	testForward[float64](t)
}

func testForward[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		rng := rand.New(rand.NewPCG(5, 6))
		rel, abs := tolerance[T]()
		for trial := range 6 {
			act := Activation(trial % 2)
			sizes := randSizes(rng, 1+rng.IntN(70), 1+rng.IntN(20))
			if trial == 1 {
				sizes = []int{32, NumActions} // the output layer reads X itself
			}
			m := randModel[T](rng, sizes, act)
			ws, err := newWorkspace(sizes, act, 1000, 1+trial%3, k)
			if err != nil {
				t.Fatal(err)
			}
			spreadBlocks(ws, trial)
			for _, n := range batchSizes {
				name := fmt.Sprintf("sizes=%v/%v/batch=%d", sizes, act, n)
				x := make([]T, n*sizes[0])
				for i := range x {
					x[i] = T(rng.NormFloat64())
				}
				xcopy := append([]T(nil), x...)
				want := make([]T, n*m.Out())
				ForwardRef(want, m, x)
				got, check := guarded[T](t, name+": logits", n*m.Out())
				ws.ForwardTo(got, m, x)
				check()
				closeTo(t, name+": logits", got, want, rel, abs)
				// LogProbsTo is ForwardTo and LogSoftmaxTo: bit for bit,
				// or within float32 rounding for the vector log-softmax.
				lp, check := guarded[T](t, name+": log-probabilities", n*m.Out())
				ws.LogProbsTo(lp, m, x)
				check()
				for r := range n {
					row := got[r*m.Out() : (r+1)*m.Out()]
					LogSoftmaxTo(row, row)
				}
				if k.logSoftmax != nil && m.Out() == NumActions {
					closeTo(t, name+": log-probabilities", lp, got, 1e-5, 1e-5)
				} else {
					for i := range lp {
						if lp[i] != got[i] && !(lp[i] != lp[i] && got[i] != got[i]) {
							t.Fatalf("%s: LogProbsTo[%d] = %v, ForwardTo and LogSoftmaxTo give %v", name, i, lp[i], got[i])
						}
					}
				}
				for i := range x {
					if x[i] != xcopy[i] {
						t.Fatalf("%s: ForwardTo changed x[%d]", name, i)
					}
				}
			}
			ws.Close()
		}
	})
}

// A Float type other than float32 and float64 runs the portable kernels.
type myFloat float32

func TestWorkspaceNamedFloatType(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	sizes := []int{5, 9, NumActions}
	m := randModel[myFloat](rng, sizes, Tanh)
	ws, err := NewWorkspace[myFloat](sizes, Tanh, 100, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	if ws.s.k.name != "go" {
		t.Errorf("kernel set %q, want go", ws.s.k.name)
	}
	b := randBatch(rng, m, 100)
	want := make([]myFloat, len(m.Params))
	LossAndGradRef(want, m, b, DefaultLoss())
	got := make([]myFloat, len(m.Params))
	ws.LossAndGrad(got, m, b, DefaultLoss())
	rel, abs := tolerance[float32]()
	closeTo(t, "grad", got, want, rel, abs)
}

// The result depends only on the batch, the thread count and the build.
func TestLossAndGradDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	sizes := []int{32, 64, 64, NumActions}
	m := randModel[float32](rng, sizes, Tanh)
	b := randBatch(rng, m, 777)
	ws, err := NewWorkspace[float32](sizes, Tanh, 1000, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	g1 := make([]float32, len(m.Params))
	g2 := make([]float32, len(m.Params))
	s1 := ws.LossAndGrad(g1, m, b, DefaultLoss())
	ws.ForwardTo(make([]float32, 3*10), m, b.X[:32*10]) // disturb the buffers
	s2 := ws.LossAndGrad(g2, m, b, DefaultLoss())
	if s1 != s2 {
		t.Errorf("stats %+v then %+v", s1, s2)
	}
	for i := range g1 {
		if math.Float32bits(g1[i]) != math.Float32bits(g2[i]) {
			t.Fatalf("grad[%d] = %v then %v", i, g1[i], g2[i])
		}
	}
}

func TestWorkspaceZeroAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts need a plain build")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	sizes := []int{32, 64, 64, NumActions}
	m := randModel[float32](rng, sizes, Tanh)
	b := randBatch(rng, m, 500)
	ws, err := NewWorkspace[float32](sizes, Tanh, 500, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	grad := make([]float32, len(m.Params))
	logits := make([]float32, 500*NumActions)
	opt := NewAdam[float32](DefaultAdam(), len(m.Params))
	for name, f := range map[string]func(){
		"LossAndGrad":    func() { ws.LossAndGrad(grad, m, b, DefaultLoss()) },
		"SFTLossAndGrad": func() { ws.SFTLossAndGrad(grad, m, b.X, b.Actions) },
		"ForwardTo":      func() { ws.ForwardTo(logits, m, b.X) },
		"LogProbsTo":     func() { ws.LogProbsTo(logits, m, b.X) },
		"UpdateFast":     func() { opt.UpdateFast(m.Params, grad, 1e-4) },
	} {
		if n := testing.AllocsPerRun(20, f); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", name, n)
		}
	}
}

func TestNewWorkspaceErrors(t *testing.T) {
	for _, c := range []struct {
		sizes    []int
		act      Activation
		maxBatch int
		want     string
	}{
		{[]int{3}, Tanh, 10, "at least 2 sizes"},
		{[]int{3, 0, 3}, Tanh, 10, "size 1 is 0"},
		{[]int{3, 3}, Activation(7), 10, "unknown activation"},
		{[]int{3, 3}, Tanh, 0, "max batch 0"},
	} {
		_, err := NewWorkspace[float32](c.sizes, c.act, c.maxBatch, 0)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("NewWorkspace(%v, %v, %d) = %v, want an error containing %q", c.sizes, c.act, c.maxBatch, err, c.want)
		}
	}
}

func TestWorkspaceMisusePanics(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	sizes := []int{4, 8, NumActions}
	m := randModel[float32](rng, sizes, Tanh)
	ws, err := NewWorkspace[float32](sizes, Tanh, 10, 2)
	if err != nil {
		t.Fatal(err)
	}
	grad := make([]float32, len(m.Params))
	other := randModel[float32](rng, []int{4, 9, NumActions}, Tanh)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"other sizes", func() { ws.ForwardTo(make([]float32, 3), other, make([]float32, 4)) }},
		{"other activation", func() {
			m.Act = ReLU
			defer func() { m.Act = Tanh }()
			ws.ForwardTo(make([]float32, 3), m, make([]float32, 4))
		}},
		{"too many rows", func() { ws.ForwardTo(make([]float32, 33), m, make([]float32, 44)) }},
		{"short grad", func() { ws.LossAndGrad(grad[1:], m, randBatch(rng, m, 3), DefaultLoss()) }},
		{"ragged x", func() { ws.SFTLossAndGrad(grad, m, make([]float32, 5), []uint8{0, 1}) }},
		{"after close", func() { ws.Close(); ws.ForwardTo(make([]float32, 3), m, make([]float32, 4)) }},
	} {
		name, f := c.name, c.f
		func() {
			defer func() {
				r := recover()
				if s, ok := r.(string); !ok || !strings.HasPrefix(s, "nn: ") {
					t.Errorf("%s: recovered %v, want a panic starting with \"nn: \"", name, r)
				}
			}()
			f()
		}()
	}
}

// A Workspace dropped without Close stops its goroutines once collected.
func TestWorkspaceCleanupStopsWorkers(t *testing.T) {
	// Let the workers of earlier tests' workspaces finish exiting first,
	// or their exits would mask this workspace's goroutines.
	before := runtime.NumGoroutine()
	for stable := 0; stable < 5; {
		runtime.GC()
		time.Sleep(5 * time.Millisecond)
		if n := runtime.NumGoroutine(); n < before {
			before, stable = n, 0
		} else {
			stable++
		}
	}
	func() {
		ws, err := NewWorkspace[float32]([]int{4, 3}, Tanh, 1000, 4)
		if err != nil {
			t.Fatal(err)
		}
		if ws.Threads() != 4 {
			t.Fatalf("Threads() = %d, want 4", ws.Threads())
		}
		if n := runtime.NumGoroutine(); n < before+3 {
			t.Fatalf("%d goroutines after starting 3 workers, had %d", n, before)
		}
	}()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > before {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines 10 s after dropping the workspace, had %d", runtime.NumGoroutine(), before)
		}
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
}
