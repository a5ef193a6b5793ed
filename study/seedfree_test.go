package study

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
)

// seedFreeCount counts the kept rows of baseline b.
func seedFreeCount(s *Study, b int) int {
	n := 0
	s.free.rows.Range(func(k, _ any) bool {
		if k.(seedFreeKey).base == b {
			n++
		}
		return true
	})
	return n
}

// The baselines' rows are those of playing every task under every seed:
// on a replay, whose fixed protocols take every action with certainty,
// later seeds reuse a task's row, whichever job played it first (the
// jobs here run backwards); the random protocol draws its actions and is
// played every time; the simulator, whose games draw from the seed, keeps
// nothing.
func TestSeedFreeBaselinesAsPlayed(t *testing.T) {
	replayed := shared(t, "slm-debate/gsm/gsm_Llama-3.2-3B_*.json")
	s, err := sim.New(sim.Config{Tasks: 30, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range []env.Env{replayed, s} {
		cfg := Config{Folds: 3, Seeds: 3, Lambdas: []float64{0}, Episodes: 2,
			Baselines: []string{"majority", "random", "gate", "until-consensus"}, Trainer: constTrainer("debate"), Workers: 1}
		p, err := NewPlan(e, cfg)
		if err != nil {
			t.Fatal(err)
		}
		st, c, bases, jobs := p.Study, p.Config, p.bases, p.Cells
		ref := *st
		ref.free = nil
		compared := 0
		for _, j := range slices.Backward(jobs) {
			if !j.Baselines {
				continue
			}
			got, err := st.runJob(e, &c, bases, st.Rounds, j)
			if err != nil {
				t.Fatal(err)
			}
			want, err := ref.runJob(e, &c, bases, st.Rounds, j)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Fatalf("%s: seed %d fold %d: the baselines' rows differ from playing them (-played +seed-free):\n%s", e.Name(), j.Seed, j.Fold, d)
			}
			compared += len(got)
		}
		kept := []int{seedFreeCount(st, 0), seedFreeCount(st, 1), seedFreeCount(st, 2)}
		_, isSim := e.(*sim.Simulator)
		switch {
		case compared == 0:
			t.Fatalf("%s: no row compared", e.Name())
		case isSim && kept[0]+kept[2] != 0:
			t.Errorf("simulator: %v rows kept, want none", kept)
		case !isSim && (kept[0] != e.NumTasks() || kept[2] != e.NumTasks()):
			t.Errorf("replay: %v rows kept of majority, random, gate; want every one of %d tasks for majority and gate", kept, e.NumTasks())
		case kept[1] != 0:
			t.Errorf("%s: %d rows of the random protocol kept", e.Name(), kept[1])
		}
	}
}
