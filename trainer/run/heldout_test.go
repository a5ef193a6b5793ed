package run

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env/sim"
)

// heldOutConfig is simConfig with a held-out side, four iterations and
// held-out points every eval iterations, in dir.
func heldOutConfig(t *testing.T, dir string, every int) Config {
	t.Helper()
	c := simConfig(t)
	c.Train.RL.Iterations = 4
	held, err := sim.New(sim.Config{Seed: 9})
	if err != nil {
		t.Fatal(err)
	}
	c.HeldOutEnv, c.EvalTasks, c.EvalEvery, c.Dir = held, 12, every, dir
	return c
}

// Held-out points are taken at iteration 0, every EvalEvery iterations and
// after the last, logged in metrics.jsonl, and change nothing the run
// trains: the policy and best.mpdf's bytes are those of a run without them.
func TestHeldOutPointsChangeNothingTrained(t *testing.T) {
	with, without := filepath.Join(t.TempDir(), "with"), filepath.Join(t.TempDir(), "without")
	a, err := Train(context.Background(), heldOutConfig(t, with, 3), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := Train(context.Background(), heldOutConfig(t, without, -1), Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(a.Policy.Params, b.Policy.Params) {
		t.Error("held-out points changed the trained policy")
	}
	ba, _ := os.ReadFile(filepath.Join(with, "best.mpdf"))
	bb, _ := os.ReadFile(filepath.Join(without, "best.mpdf"))
	if len(ba) == 0 || !bytes.Equal(ba, bb) {
		t.Error("held-out points changed best.mpdf's bytes")
	}
	l, err := ReadLearning(with)
	if err != nil {
		t.Fatal(err)
	}
	var iters []int
	for _, h := range l.HeldOut {
		iters = append(iters, h.Iter)
		if h.HeldOut.Tasks != 12 || !(h.HeldOut.TeamAccuracy >= 0 && h.HeldOut.TeamAccuracy <= 1) || h.HeldOut.TokensPerTask <= 0 ||
			math.Abs(h.HeldOut.Persist+h.HeldOut.Refine+h.HeldOut.Concede-1) > 1e-9 {
			t.Errorf("held-out point %+v", *h.HeldOut)
		}
	}
	if !slices.Equal(iters, []int{0, 3, 4}) {
		t.Errorf("held-out points at iterations %v, want 0, 3, 4", iters)
	}
	if len(a.HeldOut) != len(l.HeldOut) || *a.HeldOut[1].HeldOut != *l.HeldOut[1].HeldOut {
		t.Errorf("Result.HeldOut %v, metrics.jsonl's %v", a.HeldOut, l.HeldOut)
	}
	if len(l.NonZero) != 4 {
		t.Errorf("%d iterations of advantages/nonzero, want 4", len(l.NonZero))
	}
	for _, v := range l.NonZero {
		if !(v >= 0 && v <= 1) {
			t.Errorf("advantages/nonzero %v", v)
		}
	}
	if nl, err := ReadLearning(without); err != nil || len(nl.HeldOut) != 0 {
		t.Errorf("EvalEvery −1 logged %d held-out points (%v)", len(nl.HeldOut), err)
	}
	// The final evaluation pairs the evaluated policy with the supervised
	// one; its text says so.
	c := a.RLChange
	if c == nil || c.Delta.Tasks == 0 || c.SFT.Episodes != c.RL.Episodes {
		t.Fatalf("RL change %+v", c)
	}
	if d := 100 * (c.RL.Accuracy - c.SFT.Accuracy); math.Abs(d-c.Delta.Accuracy.Estimate) > 1e-9 {
		t.Errorf("paired accuracy Δ %v, the rows' difference %v", c.Delta.Accuracy.Estimate, d)
	}
	var text strings.Builder
	if err := a.WriteText(&text, with, "sim", 1); err != nil || !strings.Contains(text.String(), "RL against the supervised policy alone") {
		t.Errorf("the report lacks the RL change (%v):\n%s", err, text.String())
	}
}
