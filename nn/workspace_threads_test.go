package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// spreadBlocks makes odd trials' workspaces run each row block on its own
// goroutine whatever the batch (as steps of 256 rows and more do), so that
// the reference tests, whose batches are smaller, cover both ways of
// running the blocks.
func spreadBlocks[T Float](ws *Workspace[T], trial int) {
	if trial%2 == 1 {
		ws.s.threadRows = 1
	}
}

// The rule: one goroutine per 128 rows of a step (2048 of a forward
// pass), at most one per block, at least the caller's.
func TestStepGoroutinesRule(t *testing.T) {
	for _, c := range []struct{ rows, blocks, want int }{
		{1, 1, 1},
		{64, 1, 1},
		{255, 2, 1},
		{256, 2, 2},
		{512, 2, 2}, // the training minibatch runs on two
		{65536, 2, 2},
		{4096, 3, 3},
		{383, 3, 2},
		{65536, 8, 8},
		{1 << 20, 1, 1},
	} {
		if got := stepGoroutines(c.rows, c.blocks, threadRows); got != c.want {
			t.Errorf("stepGoroutines(%d rows, %d blocks) = %d, want %d", c.rows, c.blocks, got, c.want)
		}
	}
	ws, err := NewWorkspace[float32]([]int{4, 8, NumActions}, Tanh, 8192, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	rng := rand.New(rand.NewPCG(21, 22))
	m := randModel[float32](rng, ws.s.sizes, Tanh)
	grad := make([]float32, len(m.Params))
	for _, c := range []struct{ rows, blocks, run, fwdRun int }{{200, 2, 1, 1}, {512, 2, 2, 1}, {2048, 2, 2, 1}, {4095, 2, 2, 1}, {4096, 2, 2, 2}, {8192, 2, 2, 2}} {
		b := randBatch(rng, m, c.rows)
		ws.LossAndGrad(grad, m, b, DefaultLoss())
		if ws.s.nw != c.blocks || ws.s.run != c.run {
			t.Errorf("step of %d rows: %d blocks on %d goroutines, want %d on %d", c.rows, ws.s.nw, ws.s.run, c.blocks, c.run)
		}
		ws.LogProbsTo(make([]float32, c.rows*NumActions), m, b.X)
		if ws.s.nw != c.blocks || ws.s.run != c.fwdRun {
			t.Errorf("forward pass of %d rows: %d blocks on %d goroutines, want %d on %d", c.rows, ws.s.nw, ws.s.run, c.blocks, c.fwdRun)
		}
	}
}

// Running a workspace's row blocks on one goroutine or on one each gives
// the same bits: the rule changes the speed of a step, never its result.
func TestBlocksSameBitsWhateverTheGoroutines(t *testing.T) {
	testBlocksSameBits[float32](t)
	testBlocksSameBits[float64](t)
}

func testBlocksSameBits[T Float](t *testing.T) {
	forEachSet(t, func(t *testing.T, k *kernelSet[T]) {
		rng := rand.New(rand.NewPCG(23, 24))
		sizes := []int{32, 64, 64, NumActions}
		m := randModel[T](rng, sizes, Tanh)
		for _, threads := range []int{2, 3} {
			serial, err := newWorkspace(sizes, Tanh, 2500, threads, k)
			if err != nil {
				t.Fatal(err)
			}
			parallel, err := newWorkspace(sizes, Tanh, 2500, threads, k)
			if err != nil {
				t.Fatal(err)
			}
			// 1<<20 rows a goroutine: more than any batch here, and still
			// an int of 32 bits times forwardRows/threadRows.
			serial.s.threadRows, parallel.s.threadRows = 1<<20, 1
			for _, n := range []int{700, 2500} {
				b := randBatch(rng, m, n)
				b.Group = make([]int32, n)
				for i := range b.Group {
					b.Group[i] = int32(i / 10)
				}
				rank := DefaultLoss()
				rank.Kind = LossRankMatch
				name := fmt.Sprintf("threads=%d/batch=%d", threads, n)
				np := len(m.Params)
				for _, op := range []struct {
					name string
					f    func(ws *Workspace[T], out []T) any
				}{
					{"LossAndGrad", func(ws *Workspace[T], g []T) any { return ws.LossAndGrad(g[:np], m, b, DefaultLoss()) }},
					{"rank-match", func(ws *Workspace[T], g []T) any { return ws.LossAndGrad(g[:np], m, b, rank) }},
					{"SFTLossAndGrad", func(ws *Workspace[T], g []T) any { return ws.SFTLossAndGrad(g[:np], m, b.X, b.Actions) }},
					{"LogProbsTo", func(ws *Workspace[T], lp []T) any { ws.LogProbsTo(lp[:n*NumActions], m, b.X); return nil }},
				} {
					out1 := make([]T, max(len(m.Params), n*NumActions))
					out2 := make([]T, len(out1))
					st1, st2 := op.f(serial, out1), op.f(parallel, out2)
					if serial.s.run != 1 || parallel.s.run != threads {
						t.Fatalf("%s: %s ran on %d and %d goroutines, want 1 and %d", name, op.name, serial.s.run, parallel.s.run, threads)
					}
					if st1 != st2 {
						t.Errorf("%s: %s: statistics %+v on one goroutine, %+v on %d", name, op.name, st1, st2, threads)
					}
					for i := range out1 {
						if math.Float64bits(float64(out1[i])) != math.Float64bits(float64(out2[i])) {
							t.Fatalf("%s: %s: out[%d] = %v on one goroutine, %v on %d", name, op.name, i, out1[i], out2[i], threads)
						}
					}
				}
			}
			serial.Close()
			parallel.Close()
		}
	})
}
