package autodiff

import (
	"fmt"
	"testing"

	"github.com/mpdf/mpdf/nn"
	"gorgonia.org/tensor"
)

// benchSizes is the default meta-policy shape: 26 features, two hidden
// layers of 64.
var benchSizes = []int{26, 64, 64, 3}

func benchSetup[T nn.Float](b *testing.B, batch int) (*Engine[T], *nn.MLP[T], *nn.Batch[T]) {
	e := newEngine[T](b, benchSizes, nn.Tanh, nn.DefaultLoss())
	m64 := randomModel(benchSizes, nn.Tanh, 1)
	return e, nn.Convert[T](m64), convertBatch[T](randomBatch(m64, nn.DefaultLoss(), batch, 2))
}

func BenchmarkLossAndGrad(b *testing.B) {
	for _, batch := range []int{64, 1024} {
		b.Run(fmt.Sprintf("impl=gorgonia/dtype=float32/batch=%d", batch), func(b *testing.B) {
			benchLoss[float32](b, batch)
		})
		b.Run(fmt.Sprintf("impl=gorgonia/dtype=float64/batch=%d", batch), func(b *testing.B) {
			benchLoss[float64](b, batch)
		})
	}
}

func benchLoss[T nn.Float](b *testing.B, batch int) {
	e, m, bt := benchSetup[T](b, batch)
	grad := make([]T, len(m.Params))
	if _, err := e.LossAndGrad(grad, m, bt); err != nil { // compile outside the timing
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := e.LossAndGrad(grad, m, bt); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(batch)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
}

func BenchmarkSFTLossAndGrad(b *testing.B) {
	for _, batch := range []int{64, 1024} {
		b.Run(fmt.Sprintf("impl=gorgonia/dtype=float32/batch=%d", batch), func(b *testing.B) {
			e, m, bt := benchSetup[float32](b, batch)
			grad := make([]float32, len(m.Params))
			if _, err := e.SFTLossAndGrad(grad, m, bt.X, bt.Actions); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := e.SFTLossAndGrad(grad, m, bt.X, bt.Actions); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(batch)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

func BenchmarkForward(b *testing.B) {
	for _, batch := range []int{64, 1024} {
		b.Run(fmt.Sprintf("impl=gorgonia/dtype=float32/batch=%d", batch), func(b *testing.B) {
			e, m, bt := benchSetup[float32](b, batch)
			logits := make([]float32, batch*nn.NumActions)
			if err := e.Forward(logits, m, bt.X); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if err := e.Forward(logits, m, bt.X); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(batch)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}

// BenchmarkCompile measures what the graph cache saves: building and
// compiling the loss graph for one batch size.
func BenchmarkCompile(b *testing.B) {
	b.Run("kind=loss/batch=256", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			gr, err := build(kindLoss, benchSizes, 0, nn.Tanh, nn.DefaultLoss(), tensor.Float32, 256)
			if err != nil {
				b.Fatal(err)
			}
			gr.vm.Close()
		}
	})
}
