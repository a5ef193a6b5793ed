package trainer

import (
	"fmt"
	"math"
)

// Schedule maps an optimiser step to a multiple of the base learning rate.
type Schedule uint8

const (
	Constant Schedule = iota // 1
	Linear                   // 1 → 0 linearly over the run
	Cosine                   // 1 → 0 along a half cosine
)

// ParseSchedule parses "constant", "linear" or "cosine" ("" is constant).
func ParseSchedule(s string) (Schedule, error) {
	switch s {
	case "", "constant":
		return Constant, nil
	case "linear":
		return Linear, nil
	case "cosine":
		return Cosine, nil
	}
	return 0, fmt.Errorf("unknown schedule %q (want constant, linear or cosine)", s)
}

// LR is the learning rate of step (0-based): a linear warm-up over warmup
// steps, then the schedule's decay by progress, the share of the run done
// (in [0, 1]; iterations done / iterations planned), so that the schedule
// does not depend on how many minibatches each batch happens to have.
func (s Schedule) LR(base float64, step, warmup int64, progress float64) float64 {
	if warmup > 0 && step < warmup {
		return base * float64(step+1) / float64(warmup)
	}
	p := min(1, max(0, progress))
	switch s {
	case Linear:
		return base * (1 - p)
	case Cosine:
		return base * 0.5 * (1 + math.Cos(math.Pi*p))
	}
	return base
}
