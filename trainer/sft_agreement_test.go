package trainer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// SFT.Agreement through the kernels counts what Agreement's row-by-row
// pass counts, over more rows than one of its batches.
func TestSFTAgreementMatchesRowByRow(t *testing.T) {
	sizes := []int{26, 64, 64, nn.NumActions}
	policy := testMLP(t, sizes, nn.Tanh, 5)
	backend, err := NewKernelBackend(sizes, nn.Tanh, nn.DefaultLoss(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer backend.Close()
	s, err := NewSFT(backend, policy, SFTConfig{Epochs: 1, BatchSize: 64, LR: 0.01}, nn.DefaultAdam(), 1)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(6, 7))
	n := agreementRows + 1809
	x := make([]float32, n*sizes[0])
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	y := make([]uint8, n)
	for i := range y {
		y[i] = uint8(rng.IntN(nn.NumActions))
	}
	want := int(math.Round(Agreement(policy, x, y) * float64(n)))
	if want == 0 || want == n {
		t.Fatalf("row-by-row agreement %d of %d: the test needs both hits and misses", want, n)
	}
	got, err := s.Agreement(x, y)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("SFT.Agreement = %d of %d rows, row by row %d", got, n, want)
	}
	if _, err := s.Agreement(x[1:], y); err == nil {
		t.Error("ragged features accepted")
	}
}
