package replay

import (
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// arithTiny is a GSM8K transcript whose answers state arithmetic: agent 0
// computes right, agent 1 slips (its answer is the slip's result), agent 2
// states no equation.
const arithTiny = `{
 "q": [[
   [{"role":"user","content":"q"},{"role":"assistant","content":"3 * 4 = 12. \\boxed{12}"},{"role":"user","content":"p"},{"role":"assistant","content":"3 * 4 = 12 and 12 + 2 = 15, then 15 - 3 = 12. \\boxed{12}"}],
   [{"role":"user","content":"q"},{"role":"assistant","content":"3 * 4 = 13. \\boxed{13}"},{"role":"user","content":"p"},{"role":"assistant","content":"\\boxed{12}"}],
   [{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{13}"},{"role":"user","content":"p"},{"role":"assistant","content":"\\boxed{12}"}]
 ], "#### 12"]
}`

func confOf(t *data.Turn) float64 {
	if t.Confidence == nil {
		return -1
	}
	return *t.Confidence
}

// TestWithCritic: the critic fills the confidence of recorded turns where
// it checks something, and only when asked; a concede leaves it missing.
func TestWithCritic(t *testing.T) {
	qs := questions(t, arithTiny, "gsm_arith.json")
	off, err := New(qs)
	if err != nil {
		t.Fatal(err)
	}
	on, err := off.With(WithCritic(true))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		e    *Env
		want [2][3]float64 // round 0, round 1 after refine; -1 = missing
	}{
		{off, [2][3]float64{{-1, -1, -1}, {-1, -1, -1}}},
		{on, [2][3]float64{{1, 0, -1}, {2.0 / 3, -1, -1}}},
	} {
		g, err := c.e.Start(0, nil)
		if err != nil {
			t.Fatal(err)
		}
		hist := play(t, g, 1, always(metapolicy.Refine))
		for r := range 2 {
			for k := range 3 {
				if got := confOf(&hist[r][k]); got != c.want[r][k] {
					t.Errorf("critic %v: round %d agent %d: confidence %v, want %v", c.e.critic, r, k, got, c.want[r][k])
				}
			}
		}
	}
	// A concede adopts a peer's answer without its confidence: the conceding
	// agent wrote no reasoning. A persist keeps it.
	g, err := on.Start(0, nil)
	if err != nil {
		t.Fatal(err)
	}
	hist := play(t, g, 1, func(_, k int, _ []data.Turn) metapolicy.Action {
		if k == 2 {
			return metapolicy.Concede
		}
		return metapolicy.Persist
	})
	if c := hist[1][2].Confidence; c != nil {
		t.Errorf("conceding agent has confidence %v, want missing", *c)
	}
	if c := hist[1][0].Confidence; c == nil || *c != 1 {
		t.Errorf("persisting agent 0 lost its confidence: %v", c)
	}
	if off.critic {
		t.Error("With changed the receiver")
	}
}
