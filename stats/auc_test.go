package stats

import (
	"math"
	"testing"
)

func TestAUCHandComputed(t *testing.T) {
	// Positives score 2 and 3, negatives 1 and 2: of the four pairs three
	// are ordered and one ties, (1 + 0.5 + 1 + 1)/4.
	if got := AUC([]float64{1, 2, 2, 3}, []bool{false, true, false, true}); got != 0.875 {
		t.Errorf("AUC = %v, want 0.875", got)
	}
	if got := AUC([]float32{3, 2, 1}, []bool{false, false, true}); got != 0 {
		t.Errorf("reversed: AUC = %v, want 0", got)
	}
	if got := AUC([]float32{5, 5, 5, 5}, []bool{true, false, true, false}); got != 0.5 {
		t.Errorf("all tied: AUC = %v, want 0.5", got)
	}
	for name, c := range map[string]struct {
		xs []float64
		ys []bool
	}{
		"no negative": {[]float64{1, 2}, []bool{true, true}},
		"no positive": {[]float64{1, 2}, []bool{false, false}},
		"NaN score":   {[]float64{1, math.NaN(), 2}, []bool{true, false, false}},
	} {
		if got := AUC(c.xs, c.ys); !math.IsNaN(got) {
			t.Errorf("%s: AUC = %v, want NaN", name, got)
		}
	}
}
