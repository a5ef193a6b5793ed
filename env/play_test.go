package env_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
)

func heuristic(t testing.TB, spec string) metapolicy.Policy {
	t.Helper()
	p, err := metapolicy.ParseHeuristic(spec)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRunDeterministic(t *testing.T) {
	s := newSim(t, sim.Config{})
	p := heuristic(t, "random")
	opts := env.RunOptions{NumTasks: 60, Episodes: 3, Seed: 11, Workers: 1}
	a, err := env.Collect(s, p, opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != 180 {
		t.Fatalf("%d episodes, want 180", len(a))
	}
	for _, w := range []int{1, 3, 8} {
		opts.Workers = w
		b, err := env.Collect(s, p, opts)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(a, b); d != "" {
			t.Fatalf("workers=%d: episodes differ from a sequential run with the same seed (-sequential +parallel):\n%s", w, d)
		}
	}
	opts.Seed = 12
	c, _ := env.Collect(s, p, opts)
	if cmp.Equal(a, c) {
		t.Error("seeds 11 and 12 gave the same episodes")
	}
	// Episodes of one task differ from each other: each has its own streams.
	if cmp.Equal(a[0].Rounds, a[1].Rounds) {
		t.Error("two episodes of one task are identical")
	}
}

// TestRunTaskListDeterministic checks that an episode depends on (seed,
// task, episode) only, not on its position in the run.
func TestRunTaskListDeterministic(t *testing.T) {
	s := newSim(t, sim.Config{})
	p := heuristic(t, "random")
	all, err := env.Collect(s, p, env.RunOptions{NumTasks: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	some, err := env.Collect(s, p, env.RunOptions{Tasks: []int{7, 2}, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	for i, task := range []int{7, 2} {
		if d := cmp.Diff(all[task], some[i]); d != "" {
			t.Errorf("task %d's episode changed with the task list around it (-all tasks +tasks 7, 2):\n%s", task, d)
		}
	}
}

// TestEpisodeInvariants checks the episodes Run writes under a policy that
// takes every action.
func TestEpisodeInvariants(t *testing.T) {
	s := newSim(t, sim.Config{MissingConfidence: 0.1})
	const rounds = 4
	eps, err := env.Collect(s, heuristic(t, "random"), env.RunOptions{NumTasks: 200, Episodes: 2, Rounds: rounds, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	var count [metapolicy.NumActions]int
	for _, ep := range eps {
		if ep.Kind != data.KindEpisode || ep.Source != "simulator" || ep.Policy != "random" || ep.Gold == "" || ep.Task == "" {
			t.Fatalf("episode %s: header %+v", ep.ID, ep)
		}
		if ids[ep.ID] {
			t.Fatalf("duplicate id %s", ep.ID)
		}
		ids[ep.ID] = true
		if len(ep.Rounds) != rounds+1 {
			t.Fatalf("%s: %d rounds, want %d", ep.ID, len(ep.Rounds), rounds+1)
		}
		for r, round := range ep.Rounds {
			if len(round.Turns) != ep.Agents || ep.Agents != 3 {
				t.Fatalf("%s: round %d: %d turns for %d agents", ep.ID, r, len(round.Turns), ep.Agents)
			}
			for i, tu := range round.Turns {
				if r == 0 {
					if tu.Action != nil || tu.LogProb != nil || tu.Tokens <= 0 {
						t.Fatalf("%s: round 0 agent %d: %+v", ep.ID, i, tu)
					}
					continue
				}
				if tu.Action == nil || tu.LogProb == nil {
					t.Fatalf("%s: round %d agent %d: no action or logprob", ep.ID, r, i)
				}
				if lp := *tu.LogProb; lp > 0 || math.Abs(lp-math.Log(1.0/3)) > 1e-12 {
					t.Fatalf("%s: round %d agent %d: logprob %v, want log(1/3)", ep.ID, r, i, lp)
				}
				prev := ep.Rounds[r-1].Turns
				count[*tu.Action]++
				switch *tu.Action {
				case metapolicy.Persist:
					if tu.Answer != prev[i].Answer || tu.Tokens != 0 || !cmp.Equal(tu.Confidence, prev[i].Confidence) {
						t.Fatalf("%s: round %d agent %d: persist changed %+v into %+v", ep.ID, r, i, prev[i], tu)
					}
				case metapolicy.Concede:
					answers, conf := data.Votes(prev)
					want := metapolicy.ConcedeTarget(answers, conf, i)
					if want == "" {
						want = prev[i].Answer
					}
					if tu.Answer != want || tu.Tokens != sim.DefaultConcedeTokens {
						t.Fatalf("%s: round %d agent %d: concede to %q at %d tokens, want %q at %d",
							ep.ID, r, i, tu.Answer, tu.Tokens, want, sim.DefaultConcedeTokens)
					}
				case metapolicy.Refine:
					if tu.Tokens <= prev[i].Profile.Tokens {
						t.Fatalf("%s: round %d agent %d: refine cost %d tokens", ep.ID, r, i, tu.Tokens)
					}
				}
				if c := tu.Confidence; c != nil && !(*c >= 0 && *c <= 1) {
					t.Fatalf("%s: round %d agent %d: confidence %v", ep.ID, r, i, *c)
				}
			}
		}
	}
	for a, k := range count {
		if k < 1000 {
			t.Errorf("%v taken %d times of %d", metapolicy.Action(a), k, 200*2*rounds*3)
		}
	}
}

// recorder wraps an Env to see what Game.Step receives.
type recorder struct {
	env.Env
	blankPeers, fullPeers *int
}

type recGame struct {
	env.Game
	r *recorder
}

func (r recorder) Start(task int, rng *rand.Rand) (env.Game, error) {
	g, err := r.Env.Start(task, rng)
	return recGame{g, &r}, err
}

func (g recGame) Step(round, agent int, a metapolicy.Action, prev []data.Turn) (data.Turn, error) {
	blank := 0
	for i := range prev {
		if i != agent && cmp.Equal(prev[i], data.Turn{}) {
			blank++
		}
	}
	switch blank {
	case len(prev) - 1:
		*g.r.blankPeers++
	case 0:
		*g.r.fullPeers++
	}
	return g.Game.Step(round, agent, a, prev)
}

func TestRunSelfRefineHidesPeers(t *testing.T) {
	s := newSim(t, sim.Config{})
	for _, tc := range []struct {
		policy      string
		blank, full int
	}{{"refine", 90, 0}, {"debate", 0, 90}} {
		var blank, full int
		rec := recorder{Env: s, blankPeers: &blank, fullPeers: &full}
		eps, err := env.Collect(rec, heuristic(t, tc.policy), env.RunOptions{NumTasks: 10, Seed: 1, Workers: 1})
		if err != nil {
			t.Fatal(err)
		}
		if blank != tc.blank || full != tc.full {
			t.Errorf("%s: %d steps saw no peers, %d saw all, want %d and %d", tc.policy, blank, full, tc.blank, tc.full)
		}
		// The record keeps what the agents really held.
		if eps[0].Rounds[0].Turns[1].Answer == "" && eps[0].Rounds[0].Turns[2].Answer == "" {
			t.Errorf("%s: recorded peers blank", tc.policy)
		}
	}
}

func TestRunOptionsErrors(t *testing.T) {
	s := newSim(t, sim.Config{Tasks: 10})
	p := heuristic(t, "persist")
	for name, o := range map[string]env.RunOptions{
		"negative episodes": {Episodes: -1},
		"negative rounds":   {Rounds: -1},
		"negative workers":  {Workers: -2},
		"too many tasks":    {NumTasks: 11},
		"task out of range": {Tasks: []int{3, 10}},
		"negative task":     {Tasks: []int{-1}},
		"list and count":    {Tasks: []int{1}, NumTasks: 1},
	} {
		if err := env.Play(s, p, o, func(*data.Episode) error { return nil }); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

var errStop = errors.New("stop here")

func TestRunStopsOnEmitError(t *testing.T) {
	s := newSim(t, sim.Config{})
	for _, w := range []int{1, 4} {
		n := 0
		err := env.Play(s, heuristic(t, "debate"), env.RunOptions{Workers: w}, func(*data.Episode) error {
			n++
			if n == 5 {
				return errStop
			}
			return nil
		})
		if !errors.Is(err, errStop) || n != 5 {
			t.Errorf("workers=%d: err %v after %d episodes, want errStop after 5", w, err, n)
		}
	}
}

// failing is a policy that fails on its third call.
type failing struct{ calls *int }

func (f failing) Name() string { return "failing" }
func (f failing) Probs(p *[metapolicy.NumActions]float64, obs *metapolicy.Observation) error {
	*f.calls++
	if *f.calls == 3 {
		return errStop
	}
	*p = [metapolicy.NumActions]float64{1, 0, 0}
	return nil
}

// zeroMass is a policy whose distribution is all zeros.
type zeroMass struct{}

func (zeroMass) Name() string { return "zero" }
func (zeroMass) Probs(p *[metapolicy.NumActions]float64, obs *metapolicy.Observation) error {
	*p = [metapolicy.NumActions]float64{}
	return nil
}

func TestRunPolicyErrors(t *testing.T) {
	s := newSim(t, sim.Config{})
	calls := 0
	_, err := env.Collect(s, failing{&calls}, env.RunOptions{NumTasks: 2, Workers: 1})
	if !errors.Is(err, errStop) {
		t.Errorf("policy error: got %v", err)
	}
	for _, greedy := range []bool{false, true} {
		if _, err := env.Collect(s, zeroMass{}, env.RunOptions{NumTasks: 2, Greedy: greedy}); err == nil {
			t.Errorf("greedy=%v: a policy with no mass ran", greedy)
		}
	}
}

func TestRunProgressAndGreedy(t *testing.T) {
	s := newSim(t, sim.Config{})
	var calls []int
	opts := env.RunOptions{NumTasks: 7, Episodes: 2, Greedy: true, Workers: 3,
		Progress: func(done, total int) {
			if total != 14 {
				t.Errorf("total %d, want 14", total)
			}
			calls = append(calls, done)
		}}
	eps, err := env.Collect(s, heuristic(t, "random"), opts)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range calls {
		if d != i+1 {
			t.Fatalf("progress %v, want 1..14", calls)
		}
	}
	if len(calls) != 14 {
		t.Fatalf("progress called %d times", len(calls))
	}
	// Greedy on a uniform policy takes the lowest index: persist.
	for _, ep := range eps {
		for _, tu := range ep.Rounds[1].Turns {
			if *tu.Action != metapolicy.Persist {
				t.Fatalf("greedy random took %v", *tu.Action)
			}
		}
	}
}

func BenchmarkRun(b *testing.B) {
	s := newSim(b, sim.Config{})
	for _, name := range []string{"persist", "debate", "random"} {
		for _, w := range []int{1, 2} {
			b.Run(fmt.Sprintf("policy=%s/workers=%d", name, w), func(b *testing.B) {
				p := heuristic(b, name)
				b.ReportAllocs()
				n := 0
				for b.Loop() {
					if err := env.Play(s, p, env.RunOptions{NumTasks: 100, Workers: w}, func(*data.Episode) error { n++; return nil }); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "episodes/s")
			})
		}
	}
}

// historyCheck is a policy that checks each observation's History against
// the episode the runner records, through data.Episode.Observation.
type historyCheck struct {
	seen *[]metapolicy.Observation
}

func (h historyCheck) Name() string { return "history" }
func (h historyCheck) Probs(p *[metapolicy.NumActions]float64, obs *metapolicy.Observation) error {
	o := *obs
	o.History = nil
	for _, row := range obs.History {
		o.History = append(o.History, append([]string(nil), row...))
	}
	*h.seen = append(*h.seen, o)
	*p = [metapolicy.NumActions]float64{0.3, 0.4, 0.3}
	return nil
}

// TestRunFillsHistory: every observation carries the answers of all
// earlier rounds, equal to what the episode records and to what
// data.Episode.Observation rebuilds from it.
func TestRunFillsHistory(t *testing.T) {
	s := newSim(t, sim.Config{})
	var seen []metapolicy.Observation
	// One episode at a time, so that the policy sees the episodes' observations in order.
	eps, err := env.Collect(s, historyCheck{&seen}, env.RunOptions{NumTasks: 5, Seed: 3, Workers: 1, Batch: 1})
	if err != nil {
		t.Fatal(err)
	}
	k := 0
	for _, ep := range eps {
		for r := 1; r < len(ep.Rounds); r++ {
			for i := range ep.Agents {
				obs := seen[k]
				k++
				if len(obs.History) != r {
					t.Fatalf("%s round %d: history of %d rounds", ep.ID, r, len(obs.History))
				}
				for q := range r {
					for j, tu := range ep.Rounds[q].Turns {
						if obs.History[q][j] != tu.Answer {
							t.Fatalf("%s round %d: history[%d][%d] = %q, recorded %q", ep.ID, r, q, j, obs.History[q][j], tu.Answer)
						}
					}
				}
				if d := cmp.Diff(obs.History, ep.Observation(r, i).History); d != "" {
					t.Fatalf("%s round %d agent %d: Episode.Observation history (-runner's +Episode.Observation):\n%s", ep.ID, r, i, d)
				}
			}
		}
	}
	if k != len(seen) {
		t.Errorf("%d observations, %d decisions", len(seen), k)
	}
}

// wantBaseline is the action the baseline policy must take in round r of
// ep, from the recorded answers.
func wantBaseline(t *testing.T, policy string, ep *data.Episode, r int) metapolicy.Action {
	t.Helper()
	answers := func(q int) []string {
		out := make([]string, ep.Agents)
		for i, tu := range ep.Rounds[q].Turns {
			out[i] = tu.Answer
		}
		return out
	}
	switch policy {
	case "majority":
		return metapolicy.Persist
	case "gate":
		if metapolicy.Unanimous(answers(0)) {
			return metapolicy.Persist
		}
		return metapolicy.Refine
	case "until-consensus":
		if metapolicy.Unanimous(answers(r - 1)) {
			return metapolicy.Persist
		}
		return metapolicy.Refine
	}
	t.Fatalf("no rule for %s", policy)
	return 0
}

// TestBaselinesOnSimulator runs majority, gate and until-consensus on the
// simulator: every recorded action follows the baseline's rule, both gate
// branches occur, and until-consensus stops on agreement and never starts
// again.
func TestBaselinesOnSimulator(t *testing.T) {
	s := newSim(t, sim.Config{})
	for _, name := range []string{"majority", "gate", "until-consensus"} {
		eps, err := env.Collect(s, heuristic(t, name), env.RunOptions{NumTasks: 200, Seed: 5})
		if err != nil {
			t.Fatal(err)
		}
		var count [metapolicy.NumActions]int
		for i := range eps {
			ep := &eps[i]
			stopped := false
			for r := 1; r < len(ep.Rounds); r++ {
				want := wantBaseline(t, name, ep, r)
				for k, tu := range ep.Rounds[r].Turns {
					if *tu.Action != want {
						t.Fatalf("%s: %s round %d agent %d: %v, want %v", name, ep.ID, r, k, *tu.Action, want)
					}
					count[*tu.Action]++
				}
				if name == "until-consensus" {
					if stopped && want == metapolicy.Refine {
						t.Fatalf("%s: refined again after agreeing", ep.ID)
					}
					stopped = want == metapolicy.Persist
				}
			}
		}
		if name != "majority" && (count[metapolicy.Persist] == 0 || count[metapolicy.Refine] == 0) {
			t.Errorf("%s: actions %v: one branch never taken on 200 tasks", name, count)
		}
	}
}

func newSim(t testing.TB, cfg sim.Config) *sim.Simulator {
	t.Helper()
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// A run option out of range is a setting named by its key, for a caller
// to word as its own (mpdf's flags); 0 is each one's default.
func TestRunOptionsOutOfRange(t *testing.T) {
	s := newSim(t, sim.Config{Tasks: 4})
	for _, c := range []struct {
		opts      env.RunOptions
		key, want string
	}{
		{env.RunOptions{NumTasks: -1}, "tasks", "env: run options: tasks -1: want ≥ 0 (0: all)"},
		{env.RunOptions{Episodes: -1}, "episodes", "env: run options: episodes -1: want ≥ 0 (0: 1)"},
		{env.RunOptions{Rounds: -1}, "rounds", "env: run options: rounds -1: want ≥ 0 (0: 3)"},
		{env.RunOptions{Workers: -1}, "workers", "env: run options: workers -1: want ≥ 0 (0: one per CPU)"},
		{env.RunOptions{NumTasks: 5}, "tasks", "env: run options: tasks 5: " + s.Name() + " has 4 tasks"},
	} {
		err := env.Play(s, heuristic(t, "persist"), c.opts, func(*data.Episode) error { return nil })
		var se *errmark.Setting
		if !errors.As(err, &se) || se.Key != c.key || err.Error() != c.want {
			t.Errorf("%+v: %v, want a setting %s: %q", c.opts, err, c.key, c.want)
		}
	}
}
