package replay

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// tiny is a GSM8K transcript: three agents, agent 2 recorded one round less.
const tiny = `{
 "q1": [[
   [{"role":"user","content":"q1"},{"role":"assistant","content":"\\boxed{5}"},{"role":"user","content":"peers"},{"role":"assistant","content":"\\boxed{6}"},{"role":"user","content":"peers"},{"role":"assistant","content":"Maybe \\boxed{7}"}],
   [{"role":"user","content":"q1"},{"role":"assistant","content":"\\boxed{6}"},{"role":"user","content":"peers"},{"role":"assistant","content":"\\boxed{6}"},{"role":"user","content":"peers"},{"role":"assistant","content":"I cannot say"}],
   [{"role":"user","content":"q1"},{"role":"assistant","content":"\\boxed{6}"},{"role":"user","content":"peers"},{"role":"assistant","content":"\\boxed{8}"}]
 ], "#### 6"],
 "q2": [[
   [{"role":"user","content":"q2"},{"role":"assistant","content":"1"},{"role":"user","content":"p"},{"role":"assistant","content":"2"},{"role":"user","content":"p"},{"role":"assistant","content":"3"}],
   [{"role":"user","content":"q2"},{"role":"assistant","content":"4"},{"role":"user","content":"p"},{"role":"assistant","content":"3"},{"role":"user","content":"p"},{"role":"assistant","content":"3"}]
 ], "#### 3"]
}`

func questions(t testing.TB, doc, name string) []transcript.Question {
	t.Helper()
	var qs []transcript.Question
	if _, err := transcript.Each(strings.NewReader(doc), name, transcript.Options{}, func(q *transcript.Question) error {
		qs = append(qs, *q)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return qs
}

// play drives a game for rounds rounds with choose picking each action, the
// way a runner does: all agents of a round see the same previous turns.
func play(t testing.TB, g env.Game, rounds int, choose func(round, agent int, prev []data.Turn) metapolicy.Action) [][]data.Turn {
	t.Helper()
	first, err := g.Initial()
	if err != nil {
		t.Fatal(err)
	}
	hist := [][]data.Turn{first}
	for r := 1; r <= rounds; r++ {
		prev := hist[r-1]
		cur := make([]data.Turn, len(prev))
		for k := range cur {
			if cur[k], err = g.Step(r, k, choose(r, k, prev), prev); err != nil {
				t.Fatal(err)
			}
		}
		hist = append(hist, cur)
	}
	return hist
}

func always(a metapolicy.Action) func(int, int, []data.Turn) metapolicy.Action {
	return func(int, int, []data.Turn) metapolicy.Action { return a }
}

func answersOf(turns []data.Turn) []string {
	out := make([]string, len(turns))
	for i := range turns {
		out[i] = turns[i].Answer
	}
	return out
}

func newTiny(t testing.TB, opts ...Option) *Env {
	t.Helper()
	e, err := New(questions(t, tiny, "gsm_tiny.json"), opts...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestEnvBasics(t *testing.T) {
	e := newTiny(t)
	if e.Name() != "replay:gsm_tiny.json" || e.NumTasks() != 2 || e.Rounds() != 2 {
		t.Errorf("name %q tasks %d rounds %d", e.Name(), e.NumTasks(), e.Rounds())
	}
	g, err := e.Start(0, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	id, text, gold := g.Task()
	if id != e.Question(0).ID || text != "q1" || gold != "6" || g.Agents() != 3 {
		t.Errorf("task %q %q %q, %d agents", id, text, gold, g.Agents())
	}
	for _, task := range []int{-1, 2} {
		if _, err := e.Start(task, nil); err == nil {
			t.Errorf("Start(%d): no error", task)
		}
	}
}

// TestRefineReproducesRecording: with every agent refining every round, the
// replay gives back the recorded answers and costs of every round.
func TestRefineReproducesRecording(t *testing.T) {
	e := newTiny(t, WithText(true))
	for task := range e.NumTasks() {
		g, _ := e.Start(task, nil)
		q := e.Question(task)
		hist := play(t, g, q.Rounds(), always(metapolicy.Refine))
		for r, turns := range hist {
			if want := q.Answers(nil, r); !slices.Equal(answersOf(turns), want) {
				t.Errorf("task %d round %d: %q, recorded %q", task, r, answersOf(turns), want)
			}
			for k, turn := range turns {
				a := q.At(k, r)
				if turn.Tokens != a.Tokens() || turn.Profile != a.Profile || turn.Text != a.Text {
					t.Errorf("task %d round %d agent %d: turn %+v, recorded %+v", task, r, k, turn, a)
				}
				if r > 0 && (turn.Action == nil || *turn.Action != metapolicy.Refine || turn.LogProb != nil) {
					t.Errorf("task %d round %d agent %d: action %v logprob %v", task, r, k, turn.Action, turn.LogProb)
				}
			}
		}
	}
	// Past its recording an agent that refines keeps its answer and pays
	// for the call what its last recorded answer cost.
	g, _ := e.Start(0, nil)
	hist := play(t, g, 5, always(metapolicy.Refine))
	if got, want := answersOf(hist[5]), []string{"7", "", "8"}; !slices.Equal(got, want) {
		t.Errorf("round 5 = %q, want the last recorded %q", got, want)
	}
	q := e.Question(0)
	for k, turn := range hist[5] {
		last := q.Agents[k][len(q.Agents[k])-1]
		if turn.Tokens != last.Tokens() || turn.Profile != hist[4][k].Profile {
			t.Errorf("round 5 agent %d: %d tokens, want its last answer's %d, and its kept profile", k, turn.Tokens, last.Tokens())
		}
	}
}

// TestRefineTakesNextRevision: an agent's k-th refine takes its recorded
// answer of round k, whatever round the refine happens in. Persisting
// until the last round and then refining gets the first revision, not the
// last round's.
func TestRefineTakesNextRevision(t *testing.T) {
	e := newTiny(t)
	q := e.Question(0) // agent 0 recorded 5 → 6 → 7
	g, _ := e.Start(0, nil)
	lastOnly := func(r, _ int, _ []data.Turn) metapolicy.Action {
		if r == 2 {
			return metapolicy.Refine
		}
		return metapolicy.Persist
	}
	hist := play(t, g, 2, lastOnly)
	if got, want := answersOf(hist[2]), []string{"6", "6", "8"}; !slices.Equal(got, want) {
		t.Errorf("persist then refine ends %q, want the first revisions %q", got, want)
	}
	for k, turn := range hist[2] {
		if a := q.Agents[k][1]; turn.Tokens != a.Tokens() || turn.Profile != a.Profile {
			t.Errorf("agent %d: %d tokens, want its first revision's %d", k, turn.Tokens, a.Tokens())
		}
	}
	// A fresh episode starts over: Start makes new state.
	g2, _ := e.Start(0, nil)
	if got := answersOf(play(t, g2, 2, always(metapolicy.Refine))[2]); !slices.Equal(got, q.Answers(nil, 2)) {
		t.Errorf("second episode ends %q, recorded %q", got, q.Answers(nil, 2))
	}
	// Concede and persist use no revision: refine, concede, refine takes
	// revisions 1 and 2.
	g3, _ := e.Start(0, nil)
	hist = play(t, g3, 3, func(r, _ int, _ []data.Turn) metapolicy.Action {
		return []metapolicy.Action{0, metapolicy.Refine, metapolicy.Concede, metapolicy.Refine}[r]
	})
	if got := hist[3][0].Answer; got != "7" {
		t.Errorf("refine, concede, refine: agent 0 ends %q, want its second revision 7", got)
	}
}

// TestNoSelfRefineOnReplay: the runner refuses Self-Refine on a replay and
// the replay's baselines leave it out.
func TestNoSelfRefineOnReplay(t *testing.T) {
	e := newTiny(t)
	sr, _ := metapolicy.NewHeuristic(metapolicy.HeuristicRefine)
	if _, err := env.Collect(e, sr, env.RunOptions{}); err == nil || !strings.Contains(err.Error(), "debate under another name") {
		t.Errorf("refine on replay: err %v", err)
	}
	names := env.Baselines(e)
	if slices.Contains(names, metapolicy.HeuristicRefine) || !slices.Contains(names, metapolicy.HeuristicDebate) {
		t.Errorf("replay baselines %q", names)
	}
}

// TestPersistKeepsRoundZero: persisting keeps every round-0 answer, free.
func TestPersistKeepsRoundZero(t *testing.T) {
	e := newTiny(t)
	for task := range e.NumTasks() {
		g, _ := e.Start(task, nil)
		hist := play(t, g, 3, always(metapolicy.Persist))
		for r := 1; r < len(hist); r++ {
			if !slices.Equal(answersOf(hist[r]), answersOf(hist[0])) {
				t.Errorf("task %d round %d: %q, want round 0's %q", task, r, answersOf(hist[r]), answersOf(hist[0]))
			}
			for k, turn := range hist[r] {
				if turn.Tokens != 0 || turn.Profile != hist[0][k].Profile {
					t.Errorf("task %d round %d agent %d: tokens %d profile %+v", task, r, k, turn.Tokens, turn.Profile)
				}
			}
		}
	}
}

func TestConcede(t *testing.T) {
	e := newTiny(t)
	g, _ := e.Start(0, nil)
	first, _ := g.Initial() // 5, 6, 6
	got, err := g.Step(1, 0, metapolicy.Concede, first)
	if err != nil {
		t.Fatal(err)
	}
	if got.Answer != "6" || got.Profile != first[1].Profile || got.Tokens != DefaultConcedeTokens {
		t.Errorf("concede of agent 0 = %+v, want 6 with agent 1's profile at %d tokens", got, DefaultConcedeTokens)
	}
	// Agent 1's peers hold 5 and 6 once each: the tie goes to the lowest index.
	if got, _ := g.Step(1, 1, metapolicy.Concede, first); got.Answer != "5" {
		t.Errorf("concede of agent 1 = %q, want 5 (tie → lowest index)", got.Answer)
	}
	// Known confidence outweighs votes (design §1).
	hi, lo := 0.9, 0.2
	prev := slices.Clone(first)
	prev[0].Confidence, prev[1].Confidence, prev[2].Confidence = &hi, &lo, &lo
	if got, _ := g.Step(1, 2, metapolicy.Concede, prev); got.Answer != "5" || got.Confidence != nil {
		t.Errorf("concede with confidence = %q (conf %v), want 5 with none of its own", got.Answer, got.Confidence)
	}
	// No peer answer: the agent keeps its own.
	prev = slices.Clone(first)
	prev[1].Answer, prev[2].Answer = "", ""
	if got, _ := g.Step(1, 0, metapolicy.Concede, prev); got.Answer != "5" || got.Tokens != DefaultConcedeTokens {
		t.Errorf("concede with no peer answer = %+v, want own answer 5", got)
	}
	e0 := newTiny(t, WithConcedeTokens(0))
	g0, _ := e0.Start(0, nil)
	if got, _ := g0.Step(1, 0, metapolicy.Concede, first); got.Tokens != 0 {
		t.Errorf("WithConcedeTokens(0): %d tokens", got.Tokens)
	}
}

func TestStepErrors(t *testing.T) {
	e := newTiny(t)
	g, _ := e.Start(0, nil)
	first, _ := g.Initial()
	cases := []struct {
		name   string
		round  int
		agent  int
		action metapolicy.Action
		prev   []data.Turn
	}{
		{"round 0", 0, 0, metapolicy.Refine, first},
		{"agent high", 1, 3, metapolicy.Refine, first},
		{"agent negative", 1, -1, metapolicy.Refine, first},
		{"short prev", 1, 0, metapolicy.Refine, first[:2]},
		{"bad action", 1, 0, metapolicy.Action(7), first},
	}
	for _, c := range cases {
		if _, err := g.Step(c.round, c.agent, c.action, c.prev); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
}

func TestNewErrors(t *testing.T) {
	qs := questions(t, tiny, "gsm_tiny.json")
	one := slices.Clone(qs)
	one[1].Agents = one[1].Agents[:1]
	if _, err := New(one); err == nil || !strings.Contains(err.Error(), "question 1") {
		t.Errorf("one-agent question: err = %v", err)
	}
	empty := slices.Clone(qs)
	empty[0].Agents = [][]transcript.Answer{empty[0].Agents[0], nil}
	if _, err := New(empty); err == nil {
		t.Error("agent without answers accepted")
	}
	if _, err := New(qs, WithConcedeTokens(-1)); err == nil {
		t.Error("negative concede cost accepted")
	}
	if _, err := New(qs, WithName("")); err == nil {
		t.Error("empty name accepted")
	}
	if e, err := New(qs, WithName("replay:mine")); err != nil || e.Name() != "replay:mine" {
		t.Errorf("WithName: %v %v", e, err)
	}
	if _, _, err := Load(nil, transcript.Options{}); err == nil {
		t.Error("Load of no files: no error")
	}
	if _, _, err := Load([]string{"no/such/gsm_file.json"}, transcript.Options{}); err == nil {
		t.Error("Load of a missing file: no error")
	}
}

// TestAnyPolicy runs a uniform random policy through the replay: every
// refine must take the agent's next recorded revision (or keep its answer
// when none is left), every other answer must be a previous turn's, and
// costs must follow the action.
func TestAnyPolicy(t *testing.T) {
	e := newTiny(t)
	rng := rand.New(rand.NewPCG(7, 7))
	for task := range e.NumTasks() {
		q := e.Question(task)
		for range 20 {
			g, _ := e.Start(task, rng)
			hist := play(t, g, 3, func(int, int, []data.Turn) metapolicy.Action {
				return metapolicy.Action(rng.IntN(metapolicy.NumActions))
			})
			used := make([]int, len(q.Agents))
			for r := 1; r < len(hist); r++ {
				for k, turn := range hist[r] {
					prev := hist[r-1]
					switch *turn.Action {
					case metapolicy.Persist:
						if turn.Answer != prev[k].Answer || turn.Tokens != 0 {
							t.Fatalf("persist changed %q → %q", prev[k].Answer, turn.Answer)
						}
					case metapolicy.Refine:
						used[k]++
						as := q.Agents[k]
						want, cost := prev[k].Answer, as[len(as)-1].Tokens()
						if used[k] < len(as) {
							want, cost = as[used[k]].Answer, as[used[k]].Tokens()
						}
						if turn.Answer != want || turn.Tokens != cost {
							t.Fatalf("refine #%d gave %q at %d tokens, want %q at %d", used[k], turn.Answer, turn.Tokens, want, cost)
						}
					case metapolicy.Concede:
						want := metapolicy.ConcedeTarget(answersOf(prev), nil, k)
						if want == "" {
							want = prev[k].Answer
						}
						if turn.Answer != want {
							t.Fatalf("concede gave %q, want %q", turn.Answer, want)
						}
					}
				}
			}
		}
	}
}

func TestSubset(t *testing.T) {
	e := newTiny(t, WithConcedeTokens(3))
	s, err := e.Subset([]int{1})
	if err != nil {
		t.Fatal(err)
	}
	if s.NumTasks() != 1 || s.Question(0).Text != "q2" || s.concede != 3 || e.NumTasks() != 2 {
		t.Errorf("subset: %d tasks, %q, concede %d", s.NumTasks(), s.Question(0).Text, s.concede)
	}
	if _, err := e.Subset([]int{2}); err == nil {
		t.Error("subset with a bad task: no error")
	}
}
