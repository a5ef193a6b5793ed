package checkpoints

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// benchSizes: the default policy of the project, and a large one.
var benchSizes = []struct {
	name  string
	sizes []int
}{
	{"small", []int{metapolicy.FeatureWidth, 64, 64, 3}},
	{"large", []int{metapolicy.FeatureWidth, 1024, 1024, 3}},
}

func benchCheckpoint(b *testing.B, sizes []int) *Checkpoint {
	s := newTrainState(b, sizes, nn.Tanh, 1)
	s.run(2)
	return s.checkpoint(b)
}

func BenchmarkMarshal(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(fmt.Sprintf("model=%s", bs.name), func(b *testing.B) {
			c := benchCheckpoint(b, bs.sizes)
			out := mustMarshal(b, c)
			raw, _ := encodeBody(c)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Marshal(c); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(out))/float64(len(raw)), "ratio")
		})
	}
}

func BenchmarkUnmarshal(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(fmt.Sprintf("model=%s", bs.name), func(b *testing.B) {
			c := benchCheckpoint(b, bs.sizes)
			file := mustMarshal(b, c)
			raw, _ := encodeBody(c)
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Unmarshal(file); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkExportSafetensors(b *testing.B) {
	for _, bs := range benchSizes {
		b.Run(fmt.Sprintf("model=%s", bs.name), func(b *testing.B) {
			m := sampleMLP(b, bs.sizes, nn.Tanh)
			b.SetBytes(int64(4 * len(m.Params)))
			b.ReportAllocs()
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := ExportSafetensors(&buf, m, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
