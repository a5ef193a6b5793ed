package replay

import (
	"slices"
	"testing"

	"github.com/mpdf/mpdf/data"
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
		if ep.Source != "replay:"+q.File || ep.Gold != q.Gold || ep.Task != q.ID {
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
// after the second, the last recorded: asked for three rounds, the runner
// plays the two the transcript recorded.
func TestBaselinesOnReplay(t *testing.T) {
	e := newTiny(t)
	for _, c := range []struct {
		policy string
		want   [2][]metapolicy.Action // per task, the team's action in rounds 1..2
	}{
		{"gate", [2][]metapolicy.Action{{1, 1}, {1, 1}}},
		{"until-consensus", [2][]metapolicy.Action{{1, 1}, {1, 1}}},
		{"majority", [2][]metapolicy.Action{{0, 0}, {0, 0}}},
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
			if len(ep.Rounds) != 3 { // asked 3, the transcript recorded 2
				t.Fatalf("%s: task %d: %d rounds played, want the 2 recorded", c.policy, task, len(ep.Rounds)-1)
			}
			for r := 1; r < len(ep.Rounds); r++ {
				for k, tu := range ep.Rounds[r].Turns {
					if *tu.Action != c.want[task][r-1] {
						t.Errorf("%s: task %d round %d agent %d: %v, want %v", c.policy, task, r, k, *tu.Action, c.want[task][r-1])
					}
				}
			}
		}
	}
}

// oneRound is a GSM8K transcript that recorded a single deliberation round.
const oneRound = `{
 "q3": [[
   [{"role":"user","content":"q3"},{"role":"assistant","content":"\\boxed{2}"},{"role":"user","content":"peers"},{"role":"assistant","content":"\\boxed{4}"}],
   [{"role":"user","content":"q3"},{"role":"assistant","content":"\\boxed{4}"},{"role":"user","content":"peers"},{"role":"assistant","content":"\\boxed{4}"}]
 ], "#### 4"]
}`

// TestRunPlaysEachTaskItsOwnRounds mixes a two-round and a one-round
// transcript: asked for the most rounds any task recorded (or more), the
// runner plays each task only for the rounds it recorded, so that a
// one-round task's agents do not refine a second time and pay their last
// answer's tokens again.
func TestRunPlaysEachTaskItsOwnRounds(t *testing.T) {
	qs := append(questions(t, tiny, "gsm_tiny.json"), questions(t, oneRound, "gsm_one.json")...)
	e, err := New(qs)
	if err != nil {
		t.Fatal(err)
	}
	if e.Rounds() != 2 || e.TaskRounds(0) != 2 || e.TaskRounds(2) != 1 {
		t.Fatalf("rounds %d, task rounds %d and %d, want 2, 2 and 1", e.Rounds(), e.TaskRounds(0), e.TaskRounds(2))
	}
	refine := fixed{"refine", [3]float64{0, 1, 0}}
	for _, asked := range []int{e.Rounds(), 5} {
		eps, err := env.Collect(e, refine, env.RunOptions{Rounds: asked, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		for i, ep := range eps {
			if got, want := len(ep.Rounds)-1, e.TaskRounds(i); got != want {
				t.Errorf("asked %d rounds: task %d played %d, recorded %d", asked, i, got, want)
			}
		}
		own, err := env.Collect(e, refine, env.RunOptions{Tasks: []int{2}, Rounds: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if ta, tb := tokens(&eps[2]), tokens(&own[0]); ta != tb {
			t.Errorf("asked %d rounds: one-round task spent %d tokens, %d when played for its one round", asked, ta, tb)
		}
	}
	// Asking fewer rounds than recorded still plays fewer.
	eps, err := env.Collect(e, refine, env.RunOptions{Rounds: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(eps[0].Rounds) != 2 {
		t.Errorf("asked 1 round: task 0 played %d", len(eps[0].Rounds)-1)
	}
	if got := env.RoundsOf(e, 0, 9); got != 2 {
		t.Errorf("RoundsOf(task 0, 9) = %d, want 2", got)
	}
}

func tokens(ep *data.Episode) (n int) {
	for _, r := range ep.Rounds {
		for _, tu := range r.Turns {
			n += tu.Tokens
		}
	}
	return n
}
