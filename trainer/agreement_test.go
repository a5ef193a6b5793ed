package trainer

import (
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// TestAgreementIsPerRow: Agreement, batched, counts the rows whose argmax of
// Logits is the label, over more rows than one block and a ragged last one.
func TestAgreementIsPerRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	m, _ := nn.NewMLP[float32]([]int{9, 16, nn.NumActions}, nn.Tanh)
	m.Init(5)
	const rows = 600
	x := make([]float32, rows*9)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	y := make([]uint8, rows)
	hit, z := 0, make([]float32, nn.NumActions)
	for i := range y {
		y[i] = uint8(rng.IntN(nn.NumActions))
		m.Logits(z, x[i*9:(i+1)*9])
		best := 0
		for k := range z {
			if z[k] > z[best] {
				best = k
			}
		}
		if uint8(best) == y[i] {
			hit++
		}
	}
	if got, want := Agreement(m, x, y), float64(hit)/rows; got != want {
		t.Fatalf("Agreement %v, per-row count %v", got, want)
	}
}
