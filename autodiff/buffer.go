package autodiff

import (
	"math"

	"github.com/mpdf/mpdf/nn"
	"gorgonia.org/tensor"
)

// buffer is the backing slice of one graph tensor, of the graph's dtype.
// Exactly one of f32 and f64 is set. The engine owns it; Gorgonia reads
// inputs from it and writes outputs into it, so a call only copies.
type buffer struct {
	f32 []float32
	f64 []float64
}

func newBuffer(dt tensor.Dtype, n int) buffer {
	if dt == tensor.Float32 {
		return buffer{f32: make([]float32, n)}
	}
	return buffer{f64: make([]float64, n)}
}

// tensor wraps the buffer, without copying, as a tensor of the given shape.
func (b buffer) tensor(shape ...int) *tensor.Dense {
	if b.f32 != nil {
		return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(b.f32))
	}
	return tensor.New(tensor.WithShape(shape...), tensor.WithBacking(b.f64))
}

func (b buffer) len() int { return max(len(b.f32), len(b.f64)) }

func (b buffer) at(i int) float64 {
	if b.f32 != nil {
		return float64(b.f32[i])
	}
	return b.f64[i]
}

func (b buffer) set(i int, v float64) {
	if b.f32 != nil {
		b.f32[i] = float32(v)
		return
	}
	b.f64[i] = v
}

// load copies src into b, converting each element.
func load[T nn.Float](b buffer, src []T) {
	if b.f32 != nil {
		for i, v := range src {
			b.f32[i] = float32(v)
		}
		return
	}
	for i, v := range src {
		b.f64[i] = float64(v)
	}
}

// loadT copies the rows×cols row-major matrix src into b transposed, as the
// cols×n feature-major matrix of the graph. Graph row r is source row
// r mod rows (n > rows only for a batch of one; see minRows).
func loadT[T nn.Float](b buffer, src []T, rows, cols, n int) {
	for r := range n {
		s := src[(r%rows)*cols : (r%rows+1)*cols]
		for c, v := range s {
			b.set(c*n+r, float64(v))
		}
	}
}

// loadRows copies one value per row into the n-row buffer b, graph row r
// taking src[r mod len(src)].
func loadRows[T nn.Float](b buffer, src []T) {
	for r := range b.len() {
		b.set(r, float64(src[r%len(src)]))
	}
}

// store copies b into dst, converting each element.
func store[T nn.Float](dst []T, b buffer) {
	if b.f32 != nil {
		for i, v := range b.f32 {
			dst[i] = T(v)
		}
		return
	}
	for i, v := range b.f64 {
		dst[i] = T(v)
	}
}

// finite reports the index of the first NaN or ±Inf in s, or -1.
func finite[T nn.Float](s []T) int {
	for i, v := range s {
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return i
		}
	}
	return -1
}
