package teacher

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

// ans is a recorded answer costing tok tokens.
func ans(a string, tok int) transcript.Answer {
	return transcript.Answer{Answer: a, Profile: data.Profile{Tokens: tok}}
}

// handBuilt is a replay whose best plan is known. Gold 7; round 0 is
// 3, 3, 7 (the majority is wrong). Agent 0 revises to 7 in both recorded
// rounds (100 tokens each), agent 1 stays on 3 until round 2 (150 tokens
// each), agent 2 keeps 7 (90 tokens each). Round 0 costs 10, 40 and 10
// tokens (so that agents 0 and 1, both on 3, look different). One revision of agent 0 makes
// the team right; conceding cannot (the peers' vote is split and the tie
// goes to 3). The cheapest correct plans are one refine of agent 0, in
// round 1 or in round 2 — both cost 100 tokens under either replay rule —
// and the tie goes to the plan whose first differing action comes first:
// "ppp|rpp".
func handBuilt(t *testing.T) *replay.Env {
	t.Helper()
	q := transcript.Question{
		ID: "q", File: "hand.json", Task: answer.GSM8K, Text: "q", Gold: "7",
		Agents: [][]transcript.Answer{
			{ans("3", 10), ans("7", 100), ans("7", 100)},
			{ans("3", 40), ans("3", 150), ans("7", 150)},
			{ans("7", 10), ans("7", 90), ans("7", 90)},
		},
	}
	e, err := replay.New([]transcript.Question{q})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func TestSearchHandBuilt(t *testing.T) {
	e := handBuilt(t)
	for _, c := range []struct {
		name       string
		lambda     float64
		exhaustive int
		plan       string
		correct    bool
		tokens     int
	}{
		{"exhaustive λ=0", 0, 0, "ppp|rpp", true, 160},
		{"exhaustive λ=5", 5, 0, "ppp|rpp", true, 160},   // 1 − 0.8 beats 0 − 0.3
		{"exhaustive λ=12", 12, 0, "ppp|ppp", false, 60}, // 1 − 1.92 loses to 0 − 0.72
		{"ascent λ=0", 0, 1, "ppp|rpp", true, 160},
		{"ascent λ=12", 12, 1, "ppp|ppp", false, 60},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := Search(e, 0, Config{Lambda: c.lambda, Rounds: 2, MaxExhaustive: c.exhaustive})
			if err != nil {
				t.Fatal(err)
			}
			if got := r.Plan.String(); got != c.plan || r.Correct != c.correct || r.Tokens != c.tokens {
				t.Errorf("best plan %s (correct %v, %d tokens), want %s (%v, %d)", got, r.Correct, r.Tokens, c.plan, c.correct, c.tokens)
			}
			if want := c.exhaustive == 0; r.Exhaustive != want {
				t.Errorf("exhaustive %v, want %v", r.Exhaustive, want)
			}
			if c.exhaustive == 0 && r.Played != 729 {
				t.Errorf("played %d plans, want 3^6 = 729", r.Played)
			}
		})
	}
}

func TestLabelsFollowPlan(t *testing.T) {
	e := handBuilt(t)
	r, err := Search(e, 0, Config{Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	x, acts, err := Labels(e, []Result{r}, 0, metapolicy.FeatureWidth, metapolicy.Featurize)
	if err != nil {
		t.Fatal(err)
	}
	want := []uint8{0, 0, 0, 1, 0, 0}
	if len(acts) != len(want) || len(x) != len(want)*metapolicy.FeatureWidth {
		t.Fatalf("%d labels, %d features, want %d, %d", len(acts), len(x), len(want), len(want)*metapolicy.FeatureWidth)
	}
	for i := range want {
		if acts[i] != want[i] {
			t.Errorf("label %d: %d, want %d", i, acts[i], want[i])
		}
	}
	// Round 2's rows see round 1's states: FRound is 2/2 there.
	if v := x[3*metapolicy.FeatureWidth+metapolicy.FRound]; v != 1 {
		t.Errorf("round-2 row: FRound %v, want 1", v)
	}
}

func TestSearchNoGold(t *testing.T) {
	q := transcript.Question{ID: "q", File: "h.json", Task: answer.GSM8K, Text: "q",
		Agents: [][]transcript.Answer{{ans("1", 1)}, {ans("2", 1)}}}
	e, err := replay.New([]transcript.Question{q})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Search(e, 0, Config{Rounds: 1}); !errors.Is(err, ErrNoGold) {
		t.Errorf("err %v, want ErrNoGold", err)
	}
	res, noGold, err := SearchTasks(e, []int{0}, Config{Rounds: 1}, 1, nil)
	if err != nil || len(res) != 0 || noGold != 1 {
		t.Errorf("SearchTasks: %d results, %d without gold, err %v; want 0, 1, nil", len(res), noGold, err)
	}
}

func TestSearchBadConfig(t *testing.T) {
	e := handBuilt(t)
	for _, c := range []Config{{Rounds: 0}, {Rounds: 2, Lambda: -1}, {Rounds: 2, MaxExhaustive: -1}} {
		if _, err := Search(e, 0, c); err == nil {
			t.Errorf("config %+v accepted", c)
		}
	}
}

// On real transcripts the optimum is at least as good as every fixed
// protocol, and coordinate ascent never beats the exhaustive optimum.
func TestSearchRealBeatsProtocols(t *testing.T) {
	paths := testenv.Debates(t, "slm-debate/gsm/*_agents3_*.json")
	e, _, err := replay.Load(paths[:1], transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rounds := e.Rounds()
	n := min(e.NumTasks(), 20)
	for task := range n {
		cfg := Config{Lambda: 0.05, Rounds: rounds}
		best, err := Search(e, task, cfg)
		if errors.Is(err, ErrNoGold) {
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		g, _ := e.Start(task, nil)
		for _, a := range []metapolicy.Action{metapolicy.Persist, metapolicy.Refine, metapolicy.Concede} {
			ep, err := Play(e, task, 0, Uniform(g.Agents(), rounds, a))
			if err != nil {
				t.Fatal(err)
			}
			ok, tok := Outcome(ep)
			s := -cfg.Lambda * float64(tok) / 1000
			if ok {
				s++
			}
			if s > best.Score+1e-12 {
				t.Errorf("task %d: everyone %s scores %v > optimum %v", task, a, s, best.Score)
			}
		}
		cfg.MaxExhaustive = 1
		asc, err := Search(e, task, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if asc.Score > best.Score+1e-12 {
			t.Errorf("task %d: ascent %v beats the exhaustive optimum %v", task, asc.Score, best.Score)
		}
	}
}

// view is an Env over some tasks of another, renumbered (as a study fold's
// training side is).
type view struct {
	*replay.Env
	tasks []int
}

func (v view) NumTasks() int { return len(v.tasks) }
func (v view) Start(task int, rng *rand.Rand) (env.Game, error) {
	return v.Env.Start(v.tasks[task], rng)
}
func (v view) Source(task int) (env.Env, int) { return v.Env, v.tasks[task] }

// TaskRounds is the source task's, as a study's fold view gives it (the
// embedded Env's would read the view's number as the source's).
func (v view) TaskRounds(task int) int { return v.Env.TaskRounds(v.tasks[task]) }

// The hindsight plans of searchCached are those of Search, whatever view
// of the Env asks; each task of the source is searched once per
// configuration; a one-round task is searched over its one round, not the
// most rounds another task recorded.
func TestSearchCachedAcrossViews(t *testing.T) {
	two := handBuilt(t).Question(0)
	one := *two
	one.ID, one.Text = "q1", "q one"
	one.Agents = [][]transcript.Answer{two.Agents[0][:2], two.Agents[1][:2], two.Agents[2][:2]}
	nogold := one
	nogold.ID, nogold.Text, nogold.Gold = "q2", "q two", ""
	e, err := replay.New([]transcript.Question{*two, one, nogold})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Lambda: 0.5, Rounds: 2}
	a, b := view{e, []int{0, 2, 1}}, view{e, []int{1, 0}}
	for _, v := range []view{a, b, a} {
		got, err := searchCached(v, []int{0, 1, 2}[:v.NumTasks()], cfg)
		if err != nil {
			t.Fatal(err)
		}
		var want []Result
		for k, src := range v.tasks {
			r, err := Search(e, src, cfg)
			if errors.Is(err, ErrNoGold) {
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			r.Task = k
			want = append(want, r)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("view %v: cached plans %v, want %v", v.tasks, got, want)
		}
	}
	n := 0
	searched.Range(func(k, _ any) bool {
		if k.(cacheKey).env == env.Env(e) {
			n++
		}
		return true
	})
	if n != 3 {
		t.Errorf("%d cache entries for 3 tasks of the source", n)
	}
	r, err := Search(e, 1, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r.Plan.Rounds() != 1 {
		t.Errorf("one-round task searched over %d rounds", r.Plan.Rounds())
	}
}

// A task that recorded no round after round 0 (DyLAN's teams stop early
// on agreement) has the empty plan, and Summarize scores it by round 0.
func TestSummarizeRoundZeroOnly(t *testing.T) {
	q := handBuilt(t).Question(0)
	zero := *q
	zero.Agents = [][]transcript.Answer{q.Agents[0][:1], q.Agents[1][:1], q.Agents[2][:1]}
	e, err := replay.New([]transcript.Question{zero})
	if err != nil {
		t.Fatal(err)
	}
	r, err := Search(e, 0, Config{Rounds: 2})
	if err != nil {
		t.Fatal(err)
	}
	if r.Plan.Rounds() != 0 || r.Correct || r.Tokens != 60 {
		t.Fatalf("round-0-only task: plan %q, correct %v, %d tokens; want the empty plan, wrong, 60", r.Plan, r.Correct, r.Tokens)
	}
	sums, err := Summarize(e, []Result{r}, 0, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(sums) == 0 || sums[0].Tasks != 1 {
		t.Errorf("summaries %+v, want one task", sums)
	}
}

// seededView is a fold's view of a seeded Env, numbering its tasks anew.
type seededView struct {
	env.Env
	tasks []int
}

func (v seededView) NumTasks() int { return len(v.tasks) }
func (v seededView) Start(task int, rng *rand.Rand) (env.Game, error) {
	return v.Env.Start(v.tasks[task], rng)
}
func (v seededView) Source(task int) (env.Env, int) { return v.Env, v.tasks[task] }

// On a seeded Env (the simulator) a task's game is seeded by its number in
// the view searched, so two folds that number a task otherwise search two
// games: searchCached gives each view Search's own plans, whichever view
// searched first, so that the labels of a study do not depend on which
// worker got there first.
func TestSearchCachedSeededViews(t *testing.T) {
	s, err := sim.New(sim.Config{Tasks: 8, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Lambda: 0.5, Rounds: 3, Seed: 11}
	a, b := seededView{s, []int{0, 1, 2, 3}}, seededView{s, []int{3, 2, 1, 0}}
	for _, v := range []seededView{a, b, a, b} {
		got, err := searchCached(v, []int{0, 1, 2, 3}, cfg)
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := SearchTasks(v, []int{0, 1, 2, 3}, cfg, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("view %v: cached plans %v, want Search's %v", v.tasks, got, want)
		}
	}
}
