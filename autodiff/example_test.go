package autodiff_test

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/nn"
)

// An Engine computes the SoftRankPO loss and its gradient by automatic
// differentiation: the reference that nn's hand-written kernels are held
// to. Here a two-row batch, against nn's plain reference loop.
func ExampleEngine() {
	m, err := nn.NewMLP[float64]([]int{2, 4, nn.NumActions}, nn.Tanh)
	if err != nil {
		panic(err)
	}
	m.Init(3)
	e, err := autodiff.New[float64](m.Sizes, m.Act, nn.DefaultLoss())
	if err != nil {
		panic(err)
	}
	defer e.Close()

	// log π_ref(·|x) of the reference policy: here the policy itself.
	ref := make([]float64, 2*nn.NumActions)
	logits := make([]float64, 2*nn.NumActions)
	x := []float64{0.5, -1, 1, 0.25}
	nn.ForwardRef(logits, m, x)
	for r := range 2 {
		nn.LogSoftmaxTo(ref[r*nn.NumActions:(r+1)*nn.NumActions], logits[r*nn.NumActions:(r+1)*nn.NumActions])
	}
	b := &nn.Batch[float64]{
		X:       x,
		Actions: []uint8{1, 2},                           // refine, concede
		Adv:     []float64{0.8, -0.8},                    // the first was the better decision
		BehLogp: []float64{ref[0*3+1] - 0.1, ref[1*3+2]}, // the first drawn by an older policy
		RefLogp: ref,
	}

	grad := make([]float64, len(m.Params))
	stats, err := e.LossAndGrad(grad, m, b)
	if err != nil {
		panic(err)
	}
	want := make([]float64, len(m.Params))
	refStats := nn.LossAndGradRef(want, m, b, nn.DefaultLoss())
	diff := 0.0
	for i := range grad {
		diff = max(diff, math.Abs(grad[i]-want[i]))
	}
	fmt.Printf("loss %.6f (reference loop %.6f)\n", stats.Loss, refStats.Loss)
	fmt.Println("gradients agree to 1e-12:", diff < 1e-12)
	// Output:
	// loss -0.042068 (reference loop -0.042068)
	// gradients agree to 1e-12: true
}
