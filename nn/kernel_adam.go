package nn

import (
	"fmt"
	"math"
)

// UpdateFast is Update's kernel: the same Adam step, vectorised in T's
// precision (float32 arithmetic for float32; Update computes each element
// in float64). It allocates nothing.
func (a *Adam[T]) UpdateFast(params, grads []T, lr float64) {
	if len(params) != len(a.M) || len(grads) != len(a.M) || len(a.V) != len(a.M) {
		panic(fmt.Sprintf("nn: Adam.UpdateFast: %d params, %d grads, state for %d", len(params), len(grads), len(a.M)))
	}
	a.Step++
	c := adamCoefs(a.Config, a.Step, lr)
	if k, ok := bestSet[T](); ok {
		k.adam(params, grads, a.M, a.V, c)
		return
	}
	adamGo(params, grads, a.M, a.V, c)
}

// adamCoefs folds step t's bias corrections into the coefficients.
func adamCoefs(c AdamConfig, t int64, lr float64) adamCoef {
	return adamCoef{
		b1:   c.Beta1,
		b2:   c.Beta2,
		step: lr / (1 - math.Pow(c.Beta1, float64(t))),
		bc2:  math.Sqrt(1 - math.Pow(c.Beta2, float64(t))),
		eps:  c.Eps,
	}
}
