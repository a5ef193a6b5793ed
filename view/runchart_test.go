package view_test

import (
	"math"
	"testing"

	"github.com/mpdf/mpdf/view"
)

// TestYRangeRule: an accuracy axis shows at least 30 points inside [0, 1]
// (0.807 → 0.906 fills a third of it, not the whole height), holds every
// value and ends on multiples of 0.05; a count's axis starts at 0; a
// signed series' axis holds 0.
func TestYRangeRule(t *testing.T) {
	for _, c := range []struct {
		v      []float64
		lo, hi float64
	}{
		{[]float64{0.807, 0.906}, 0.7, 1},
		{[]float64{0.75, 0.76}, 0.6, 0.95},
		{[]float64{0.02, 0.05}, 0, 0.3},
		{[]float64{0.99, 1}, 0.7, 1},
		{[]float64{0.1, 0.9}, 0.1, 0.9},
	} {
		lo, hi := view.YRangeShare(c.v)
		if math.Abs(lo-c.lo) > 1e-9 || math.Abs(hi-c.hi) > 1e-9 {
			t.Errorf("share %v: range [%g, %g], want [%g, %g]", c.v, lo, hi, c.lo, c.hi)
		}
		if hi-lo < 0.3-1e-9 || lo < 0 || hi > 1 {
			t.Errorf("share %v: range [%g, %g] breaks the rule", c.v, lo, hi)
		}
		for _, x := range c.v {
			if x < lo || x > hi {
				t.Errorf("share %v: %g outside [%g, %g]", c.v, x, lo, hi)
			}
		}
	}
	if lo, hi := view.YRangeCount([]float64{9336, 12801}); lo != 0 || hi < 12801 || hi > 14000 {
		t.Errorf("tokens: range [%g, %g], want [0, a round number just over 12801]", lo, hi)
	}
	if lo, hi := view.YRangeSigned([]float64{0.01, 0.05}); lo != 0 || hi != 0.05 {
		t.Errorf("reward: range [%g, %g], want [0, 0.05]", lo, hi)
	}
}

// TestEMA: smoothing 0 is the raw series; the smoothed series starts at
// the first value (the start's bias removed) and follows a constant.
func TestEMA(t *testing.T) {
	y := []float64{1, 3, 2, 5}
	for i, v := range view.EMA(y, 0) {
		if v != y[i] {
			t.Errorf("w 0: %v, want the raw %v", view.EMA(y, 0), y)
		}
	}
	s := view.EMA(y, 0.9)
	if s[0] != 1 {
		t.Errorf("w 0.9: starts at %g, want the first value 1", s[0])
	}
	if want := (0.9*0.1*1 + 0.1*3) / (1 - 0.81); math.Abs(s[1]-want) > 1e-12 {
		t.Errorf("w 0.9: second point %g, want %g", s[1], want)
	}
	for _, v := range view.EMA([]float64{2, 2, 2}, 0.99) {
		if math.Abs(v-2) > 1e-12 {
			t.Errorf("a constant 2 smoothed to %g", v)
		}
	}
}

// TestPlaceLabels: points crowded together (the verdict's baselines often
// are) get labels that overlap neither each other nor a point or its
// whisker, inside the plot.
func TestPlaceLabels(t *testing.T) {
	x := []float64{100, 104, 108, 112, 300, 302}
	y := []float64{150, 152, 149, 151, 100, 101}
	texts := []string{"majority", "until-consensus", "gate", "threshold", "mpdf", "mpdf/greedy"}
	boxes := view.PlaceLabels(x, y, texts, 58, 16, 494, 260)
	for i, a := range boxes {
		if a.X < 58 || a.X+a.W > 494 || a.Y < 16 || a.Y+a.H > 260 {
			t.Errorf("%s: label %+v leaves the plot", texts[i], a)
		}
		for j, b := range boxes[i+1:] {
			if a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H {
				t.Errorf("labels %s %+v and %s %+v overlap", texts[i], a, texts[i+1+j], b)
			}
		}
		for j := range x {
			if x[j]+4 > a.X && x[j]-4 < a.X+a.W && y[j]+20 > a.Y && y[j]-20 < a.Y+a.H {
				t.Errorf("label %s %+v covers the point or whisker of %s", texts[i], a, texts[j])
			}
		}
	}
}
