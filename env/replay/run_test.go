package replay

import (
	"slices"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// fixed is a policy with one distribution for every observation.
type fixed struct {
	name string
	p    [metapolicy.NumActions]float64
}

func (f fixed) Name() string { return f.name }
func (f fixed) Probs(p *[metapolicy.NumActions]float64, _ *metapolicy.Observation) error {
	*p = f.p
	return nil
}

// TestRunnerOnReplay plays the replay through env.Collect, the runner every
// policy goes through: the always-refine policy must end on the recorded
// answers, and a stochastic policy must give the same episodes for the same
// seed with one worker or several.
func TestRunnerOnReplay(t *testing.T) {
	e := newTiny(t)
	refine := fixed{"refine", [3]float64{0, 1, 0}}
	eps, err := env.Collect(e, refine, env.RunOptions{Rounds: e.Rounds(), Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps) != e.NumTasks() {
		t.Fatalf("%d episodes, want %d", len(eps), e.NumTasks())
	}
	for i, ep := range eps {
		q := e.Question(i)
		last := ep.Rounds[len(ep.Rounds)-1].Turns
		if got, want := answersOf(last), q.Answers(nil, q.Rounds()); !slices.Equal(got, want) {
			t.Errorf("task %d: refine run ends %q, recorded %q", i, got, want)
		}
		if ep.Source != e.Name() || ep.Gold != q.Gold || ep.Task != q.ID {
			t.Errorf("task %d: episode header %q %q %q", i, ep.Source, ep.Gold, ep.Task)
		}
	}
	mixed := fixed{"mixed", [3]float64{0.3, 0.4, 0.3}}
	opts := env.RunOptions{Rounds: 3, Episodes: 4, Seed: 9, Workers: 1}
	one, err := env.Collect(e, mixed, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.Workers = 3
	many, err := env.Collect(e, mixed, opts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range one {
		for r := range one[i].Rounds {
			if !slices.Equal(answersOf(one[i].Rounds[r].Turns), answersOf(many[i].Rounds[r].Turns)) {
				t.Fatalf("episode %d round %d differs between 1 and 3 workers", i, r)
			}
		}
	}
}

// TestBaselinesOnReplay: gate and until-consensus on the recorded debates.
// q1 (5, 6, 6) is split in round 0: gate debates to the end;
// until-consensus refines until the recorded answers agree. q2 (1, 4) is
// split, still split after the first revisions (2, 3), and agrees (3, 3)
// after the second.
func TestBaselinesOnReplay(t *testing.T) {
	e := newTiny(t)
	for _, c := range []struct {
		policy string
		want   [2][]metapolicy.Action // per task, the team's action in rounds 1..3
	}{
		{"gate", [2][]metapolicy.Action{{1, 1, 1}, {1, 1, 1}}},
		{"until-consensus", [2][]metapolicy.Action{{1, 1, 1}, {1, 1, 0}}},
		{"majority", [2][]metapolicy.Action{{0, 0, 0}, {0, 0, 0}}},
	} {
		pol, err := metapolicy.ParseHeuristic(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		eps, err := env.Collect(e, pol, env.RunOptions{Rounds: 3, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for task, ep := range eps {
			for r := 1; r <= 3; r++ {
				for k, tu := range ep.Rounds[r].Turns {
					if *tu.Action != c.want[task][r-1] {
						t.Errorf("%s: task %d round %d agent %d: %v, want %v", c.policy, task, r, k, *tu.Action, c.want[task][r-1])
					}
				}
			}
		}
	}
}
