package correctness

import (
	"math"
	"testing"
	"time"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// TestAUC checks the Mann–Whitney AUC against hand-computed cases.
func TestAUC(t *testing.T) {
	for _, c := range []struct {
		v     []float32
		label []bool
		want  float64
	}{
		{[]float32{1, 2, 3, 4}, []bool{false, false, true, true}, 1},
		{[]float32{1, 2, 3, 4}, []bool{true, true, false, false}, 0},
		{[]float32{5, 5, 5, 5}, []bool{true, false, true, false}, 0.5},
		// Positives 2 and 3, negatives 1 and 3: pairs (2>1) 1, (2<3) 0,
		// (3>1) 1, (3=3) ½ → 2.5/4.
		{[]float32{2, 3, 1, 3}, []bool{true, true, false, false}, 0.625},
		{[]float32{1, 2}, []bool{true, true}, 0.5}, // no negative
	} {
		pos := 0
		for _, l := range c.label {
			if l {
				pos++
			}
		}
		if got := auc(c.v, c.label, pos); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("auc(%v, %v) = %v, want %v", c.v, c.label, got, c.want)
		}
	}
}

// TestTally: one decision per agent and round, labelled by the
// agent's current answer; episodes without a gold are skipped.
func TestTally(t *testing.T) {
	ref := metapolicy.Refine
	ep := data.Episode{ID: "e", Gold: "4", Agents: 2, Rounds: []data.Round{
		{Turns: []data.Turn{{Answer: "4"}, {Answer: "5"}}},
		{Turns: []data.Turn{{Answer: "4", Action: &ref}, {Answer: "4", Action: &ref}}},
		{Turns: []data.Turn{{Answer: "4", Action: &ref}, {Answer: "4", Action: &ref}}},
	}}
	var s Tally
	if err := s.Add(&ep); err != nil {
		t.Fatal(err)
	}
	nogold := ep
	nogold.Gold = ""
	if err := s.Add(&nogold); err != nil {
		t.Fatal(err)
	}
	if s.Decisions() != 4 || s.positives != 3 {
		t.Fatalf("%d decisions, %d right, want 4 and 3", s.Decisions(), s.positives)
	}
	for _, sig := range s.Signals() {
		// Right answers hold shares ½, 1, 1; the one wrong answer ½:
		// pairs won 0.5 + 1 + 1 of 3.
		if sig.Feature == "own_share" && math.Abs(sig.AUC-2.5/3) > 1e-12 {
			t.Errorf("own_share AUC %v, want 5/6", sig.AUC)
		}
	}
}

// TestAUCNaN: a NaN score has no rank; auc must return NaN, not spin on the
// empty tie block NaN == NaN leaves (it did).
func TestCorrectnessAUCNaN(t *testing.T) {
	done := make(chan float64, 1)
	go func() {
		done <- auc([]float32{1, float32(math.NaN()), 3}, []bool{true, false, true}, 2)
	}()
	select {
	case got := <-done:
		if !math.IsNaN(got) {
			t.Errorf("auc with a NaN score = %v, want NaN", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("auc with a NaN score did not terminate")
	}
}
