package run

import (
	"strings"
	"testing"
	"time"
)

// The summaries a run's results write: the supervised stage's one line in
// each case; a run's RL line, action shares online only, its files.
func TestReportWriteText(t *testing.T) {
	for _, c := range []struct {
		r    SFTResult
		want string
	}{
		{SFTResult{Skipped: true, Reason: "no gold"}, "supervised stage: skipped: no gold\n"},
		{SFTResult{Skipped: true}, "supervised stage: skipped (sft.epochs 0)\n"},
		{SFTResult{Rows: 10, What: "threshold", Epochs: 2, Steps: 4, FirstLoss: 1, Loss: 0.5, Agreement: 0.25},
			"supervised stage: 10 decisions (threshold), 2 epochs, 4 steps, cross-entropy 1.0000 → 0.5000, agreement 25.0%\n"},
	} {
		var b strings.Builder
		if err := c.r.WriteText(&b); err != nil || b.String() != c.want {
			t.Errorf("%+v: %q, %v; want %q", c.r, b.String(), err, c.want)
		}
	}
	r := &Result{Mode: "online", Iterations: 3, Steps: 9, RLTime: 1500 * time.Microsecond,
		Shares: &Shares{First: [3]float64{0.5, 0.25, 0.25}, Last: [3]float64{1, 0, 0}}, Files: []string{"a", "b"}}
	var b strings.Builder
	if err := r.WriteText(&b, "runs/x", "sim", 1); err != nil {
		t.Fatal(err)
	}
	want := "RL: 3 iterations, 9 steps (0 skipped) in 2ms\n" +
		"actions sampled, first → last fifth of RL: persist 50.0% → 100.0%, refine 25.0% → 0.0%, concede 25.0% → 0.0%\n" +
		"wrote runs/x: a, b\n"
	if b.String() != want {
		t.Errorf("online result:\n%q\nwant\n%q", b.String(), want)
	}
	r.Mode = "offline"
	b.Reset()
	if err := r.WriteText(&b, "runs/x", "sim", 1); err != nil || !strings.HasPrefix(b.String(), "RL: 3 passes") || strings.Contains(b.String(), "actions sampled") {
		t.Errorf("offline result: %q, %v", b.String(), err)
	}
}
