package nn

import (
	"fmt"
	"math"
	"unsafe"
)

// AdamConfig holds Adam's hyper-parameters. The zero value is not useful;
// DefaultAdam gives design §4's defaults.
type AdamConfig struct {
	LR    float64 `json:"lr"`
	Beta1 float64 `json:"beta1"`
	Beta2 float64 `json:"beta2"`
	Eps   float64 `json:"eps"`
}

// DefaultAdam returns lr 3e-4, β1 0.9, β2 0.999, ε 1e-8.
func DefaultAdam() AdamConfig { return AdamConfig{LR: 3e-4, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8} }

// Validate reports a hyper-parameter outside its domain.
func (c AdamConfig) Validate() error {
	switch {
	case !(c.LR >= 0) || math.IsInf(c.LR, 0):
		return fmt.Errorf("nn: adam: lr %v, want a finite value ≥ 0", c.LR)
	case !(c.Beta1 >= 0 && c.Beta1 < 1):
		return fmt.Errorf("nn: adam: beta1 %v, want [0, 1)", c.Beta1)
	case !(c.Beta2 >= 0 && c.Beta2 < 1):
		return fmt.Errorf("nn: adam: beta2 %v, want [0, 1)", c.Beta2)
	case !(c.Eps > 0) || math.IsInf(c.Eps, 0):
		return fmt.Errorf("nn: adam: eps %v, want a finite value > 0", c.Eps)
	}
	return nil
}

// Adam is the optimiser state: first and second moments in the flat
// parameter layout, and the number of steps taken (for bias correction).
type Adam[T Float] struct {
	Config AdamConfig
	M, V   []T
	Step   int64
}

// NewAdam returns a zeroed optimiser for n parameters.
func NewAdam[T Float](cfg AdamConfig, n int) *Adam[T] {
	return &Adam[T]{Config: cfg, M: make([]T, n), V: make([]T, n)}
}

// Update applies one bias-corrected Adam step with learning rate lr (which
// lets a schedule override Config.LR) to params, given grads. It is the
// plain reference loop (PyTorch's torch.optim.Adam, no weight decay):
//
//	t += 1
//	m = β1 m + (1-β1) g;  v = β2 v + (1-β2) g²
//	p -= lr/(1-β1^t) · m / (sqrt(v)/sqrt(1-β2^t) + ε)
func (a *Adam[T]) Update(params, grads []T, lr float64) {
	if len(params) != len(a.M) || len(grads) != len(a.M) {
		panic(fmt.Sprintf("nn: Adam.Update: %d params, %d grads, state for %d", len(params), len(grads), len(a.M)))
	}
	a.Step++
	c := a.Config
	bc1 := 1 - math.Pow(c.Beta1, float64(a.Step))
	bc2 := math.Sqrt(1 - math.Pow(c.Beta2, float64(a.Step)))
	step := lr / bc1
	for i, g := range grads {
		gf := float64(g)
		m := c.Beta1*float64(a.M[i]) + (1-c.Beta1)*gf
		v := c.Beta2*float64(a.V[i]) + (1-c.Beta2)*gf*gf
		a.M[i], a.V[i] = T(m), T(v)
		params[i] -= T(step * m / (math.Sqrt(v)/bc2 + c.Eps))
	}
}

// GradNorm is the Euclidean norm of g, accumulated in float64.
func GradNorm[T Float](g []T) float64 {
	s := 0.0
	if unsafe.Sizeof(g[:1][0]) == 4 && len(g) >= 16 {
		// float32: the vector kernel sums blocks of 16 (in float64, in
		// its own order), the loop below the rest.
		var n int
		s, n = sumSquares32(asF32(g))
		g = g[n:]
	}
	for _, v := range g {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s)
}

// ClipGradNorm scales g in place so that its norm is at most maxNorm (when
// maxNorm > 0) and returns the norm before clipping, as PyTorch's
// clip_grad_norm_ does.
func ClipGradNorm[T Float](g []T, maxNorm float64) float64 {
	n := GradNorm(g)
	if maxNorm > 0 && n > maxNorm {
		Scale(g, T(maxNorm/(n+1e-6)))
	}
	return n
}
