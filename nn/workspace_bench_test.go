package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// The kernel sets side by side on the target model (32 → 64 → 64 → 3, tanh):
// loss and gradient, then the Adam step. Root bench_test.go compares the
// best set with Gorgonia.
func BenchmarkKernelStep(b *testing.B) {
	benchKernelStep[float32](b)
	benchKernelStep[float64](b)
}

func benchKernelStep[T Float](b *testing.B) {
	sizes := []int{32, 64, 64, NumActions}
	flops := 0
	for l := range len(sizes) - 1 {
		flops += 2 * sizes[l] * sizes[l+1] * 3 // forward, ∂W, ∂H
	}
	flops -= 2 * sizes[0] * sizes[1] // no ∂X
	for _, k := range kernelSetsFor[T]() {
		for _, n := range []int{256, 4096} {
			b.Run(fmt.Sprintf("impl=%s/dtype=%s/batch=%d", k.name, typeName[T](), n), func(b *testing.B) {
				rng := rand.New(rand.NewPCG(1, 1))
				m := randModel[T](rng, sizes, Tanh)
				batch := randBatch(rng, m, n)
				ws, err := newWorkspace(sizes, Tanh, n, 0, k)
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
				b.ReportMetric(sps, "samples/s")
				b.ReportMetric(sps*float64(flops)/1e9, "GFLOP/s")
			})
		}
	}
}
