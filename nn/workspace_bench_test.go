package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/internal/peak"
)

// The kernel sets side by side on the target model (32 → 64 → 64 → 3, tanh):
// loss and gradient, then the Adam step, at 256 rows, the training
// minibatch (512, one goroutine) and 4096 (two). Root bench_test.go
// compares the best set with Gorgonia. The float32 vector sets also report
// their share of the machine's multiply-add peak on their own instruction
// set ("%peak", "%peak1": internal/peak, measured after the timed loop).
func BenchmarkKernelStep(b *testing.B) {
	benchKernelStep[float32](b)
	benchKernelStep[float64](b)
}

// stepFLOPs is the multiply-add FLOPs of one row's update step on a
// network of sizes: forward, ∂W and ∂H of every layer, no ∂X.
func stepFLOPs(sizes []int) int {
	flops := 0
	for l := range len(sizes) - 1 {
		flops += 2 * sizes[l] * sizes[l+1] * 3 // forward, ∂W, ∂H
	}
	return flops - 2*sizes[0]*sizes[1] // no ∂X
}

func benchKernelStep[T Float](b *testing.B) {
	sizes := []int{32, 64, 64, NumActions}
	for _, k := range kernelSetsFor[T]() {
		for _, n := range []int{256, 512, 4096} {
			b.Run(fmt.Sprintf("impl=%s/dtype=%s/batch=%d", k.name, typeName[T](), n), func(b *testing.B) {
				benchStep(b, k, sizes, n, 0)
			})
		}
	}
}

// benchStep times the update step (Workspace.LossAndGrad, then
// Adam.UpdateFast) of kernel set k on a random n-row batch of a network of
// sizes, on threads goroutines (0: the package's rule), and reports
// samples/s, GFLOP/s and, in float32, the share of the peak of k's
// instruction set.
func benchStep[T Float](b *testing.B, k *kernelSet[T], sizes []int, n, threads int) {
	rng := rand.New(rand.NewPCG(1, 1))
	m := randModel[T](rng, sizes, Tanh)
	batch := randBatch(rng, m, n)
	ws, err := newWorkspace(sizes, Tanh, n, threads, k)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	grad := make([]T, len(m.Params))
	opt := NewAdam[T](DefaultAdam(), len(m.Params))
	b.ReportAllocs()
	for b.Loop() {
		ws.LossAndGrad(grad, m, batch, DefaultLoss())
		opt.UpdateFast(m.Params, grad, 1e-4)
	}
	sps := float64(n) * float64(b.N) / b.Elapsed().Seconds()
	gflops := sps * float64(stepFLOPs(sizes)) / 1e9
	b.ReportMetric(sps, "samples/s")
	b.ReportMetric(gflops, "GFLOP/s")
	if typeName[T]() == "float32" {
		peak.Report(b, k.name, gflops)
	}
}

// The rank-matching loss beside the clip loss on the best float32 set, the
// target model and groups of 32 rows: its price is the extra forward pass
// of the centring and the portable loss tile.
func BenchmarkRankMatchStep(b *testing.B) {
	sizes := []int{32, 64, 64, NumActions}
	k := kernelSetsFor[float32]()[0]
	for _, kind := range []string{LossClip, LossRankMatch} {
		b.Run(fmt.Sprintf("loss=%s/impl=%s/batch=4096", kind, k.name), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 1))
			m := randModel[float32](rng, sizes, Tanh)
			batch := randBatch(rng, m, 4096)
			batch.Group = make([]int32, 4096)
			for i := range batch.Group {
				batch.Group[i] = int32(i / 32)
			}
			cfg := DefaultLoss()
			cfg.Kind, _ = ParseLossKind(kind)
			ws, err := newWorkspace(sizes, Tanh, 4096, 0, k)
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			grad := make([]float32, len(m.Params))
			ws.LossAndGrad(grad, m, batch, cfg) // scratch grown outside the loop
			b.ReportAllocs()
			for b.Loop() {
				ws.LossAndGrad(grad, m, batch, cfg)
			}
			b.ReportMetric(4096*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// nopRunner is a job that does nothing: BenchmarkPoolRun times waking the
// workers and waiting for them alone, the fixed price of running a step's
// blocks on more than one goroutine.
type nopRunner struct{}

func (nopRunner) runBlock(int) {}

func BenchmarkPoolRun(b *testing.B) {
	for _, n := range []int{1, 2} {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			p := startPool(n, nopRunner{})
			defer p.stop()
			for b.Loop() {
				p.run(n, n)
			}
		})
	}
}

// BenchmarkStepParts is the target model's step at the training minibatch
// by part: the weights' copy into the kernels' layouts, the reduction of
// two blocks' partial gradients, and Adam, beside the whole step on one
// goroutine, so that the price of a call apart from its rows shows.
func BenchmarkStepParts(b *testing.B) {
	sizes := []int{32, 64, 64, NumActions}
	k := kernelSetsFor[float32]()[0]
	rng := rand.New(rand.NewPCG(1, 1))
	m := randModel[float32](rng, sizes, Tanh)
	batch := randBatch(rng, m, 512)
	ws, err := newWorkspace(sizes, Tanh, 512, 2, k)
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	grad := make([]float32, len(m.Params))
	opt := NewAdam[float32](DefaultAdam(), len(m.Params))
	ws.LossAndGrad(grad, m, batch, DefaultLoss())
	for _, part := range []struct {
		name string
		f    func()
	}{
		{"step", func() { ws.LossAndGrad(grad, m, batch, DefaultLoss()); opt.UpdateFast(m.Params, grad, 1e-6) }},
		{"load-weights", func() { ws.s.loadWeights(m, true) }},
		{"reduce", func() { ws.s.reduceGrad(grad) }},
		{"adam", func() { opt.UpdateFast(m.Params, grad, 1e-6) }},
	} {
		b.Run("part="+part.name+"/batch=512", func(b *testing.B) {
			for b.Loop() {
				part.f()
			}
		})
	}
}
