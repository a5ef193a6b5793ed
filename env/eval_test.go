package env_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
)

func TestWilson(t *testing.T) {
	// Published values of the 95% Wilson score interval (Newcombe 1998).
	for _, c := range []struct {
		k, n   int
		lo, hi float64
	}{
		{0, 10, 0, 0.2775},
		{5, 10, 0.2366, 0.7634},
		{8, 10, 0.4902, 0.9433},
		{10, 10, 0.7225, 1},
	} {
		lo, hi := env.Wilson(c.k, c.n)
		if math.Abs(lo-c.lo) > 5e-5 || math.Abs(hi-c.hi) > 5e-5 {
			t.Errorf("Wilson(%d, %d) = [%.5f, %.5f], want [%.4f, %.4f]", c.k, c.n, lo, hi, c.lo, c.hi)
		}
	}
	if lo, hi := env.Wilson(0, 0); lo != 0 || hi != 1 {
		t.Errorf("Wilson(0, 0) = [%v, %v], want [0, 1]", lo, hi)
	}
}

// smart is a hand-written meta-policy: persist when the team is unanimous,
// concede when unsure, refine otherwise; a state-dependent policy for the
// evaluator's tests.
type smart struct{}

func (smart) Name() string { return "smart" }
func (smart) Probs(p *[metapolicy.NumActions]float64, obs *metapolicy.Observation) error {
	*p = [metapolicy.NumActions]float64{}
	self := obs.Agents[obs.Self]
	agree := 0
	for i, a := range obs.Agents {
		if i != obs.Self && a.Answer != "" && a.Answer == self.Answer {
			agree++
		}
	}
	switch c := self.Confidence; {
	case self.Answer != "" && agree == len(obs.Agents)-1:
		p[metapolicy.Persist] = 1
	case metapolicy.Known(c) && c < 0.3:
		p[metapolicy.Concede] = 1
	default:
		p[metapolicy.Refine] = 1
	}
	return nil
}

func baselines(t testing.TB) []metapolicy.Policy {
	var ps []metapolicy.Policy
	for _, n := range metapolicy.HeuristicNames() {
		ps = append(ps, heuristic(t, n))
	}
	return append(ps, smart{})
}

// TestBaselines checks what Evaluate must report for every baseline
// whatever the simulator's parameters: counts, shares that sum to one, an
// interval around the accuracy, majority scoring exactly its round 0 at
// round 0's tokens, debate refining every turn. It asserts no ranking of
// the policies: which protocol wins is a measurement, not a test.
func TestBaselines(t *testing.T) {
	s := newSim(t, sim.Config{})
	res, err := env.Evaluate(s, baselines(t), env.RunOptions{Episodes: 2, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res.WriteTable(&buf)
	t.Logf("\n%s", buf.String())
	by := map[string]env.Result{}
	for _, r := range res {
		by[r.Policy] = r
		if r.Episodes != 1000 || r.Tasks != 500 || r.Scored != 1000 {
			t.Errorf("%s: %d episodes, %d tasks, %d scored", r.Policy, r.Episodes, r.Tasks, r.Scored)
		}
		if sum := r.Actions[metapolicy.Persist] + r.Actions[metapolicy.Refine] + r.Actions[metapolicy.Concede]; math.Abs(sum-1) > 1e-12 {
			t.Errorf("%s: action shares sum to %v", r.Policy, sum)
		}
		if !(r.CILow <= r.Accuracy && r.Accuracy <= r.CIHigh) {
			t.Errorf("%s: accuracy %v outside [%v, %v]", r.Policy, r.Accuracy, r.CILow, r.CIHigh)
		}
	}
	majority, debate := by["majority"], by["debate"]
	if majority.Accuracy != majority.Round0Accuracy || majority.Actions[metapolicy.Persist] != 1 {
		t.Errorf("majority: accuracy %v, round 0 %v, persist share %v: not the round-0 majority",
			majority.Accuracy, majority.Round0Accuracy, majority.Actions[metapolicy.Persist])
	}
	if debate.Actions[metapolicy.Refine] != 1 || debate.TokensPerTask <= majority.TokensPerTask {
		t.Errorf("debate: refine share %v, %.0f tokens a task against majority's %.0f",
			debate.Actions[metapolicy.Refine], debate.TokensPerTask, majority.TokensPerTask)
	}
}

func TestEvaluateDeterministic(t *testing.T) {
	s := newSim(t, sim.Config{})
	pols := baselines(t)
	a, err := env.Evaluate(s, pols, env.RunOptions{NumTasks: 100, Seed: 9, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	var last int
	b, err := env.Evaluate(s, pols, env.RunOptions{NumTasks: 100, Seed: 9, Workers: 4,
		Progress: func(done, total int) {
			if done != last+1 || total != 100*len(pols) {
				t.Fatalf("progress %d/%d after %d", done, total, last)
			}
			last = done
		}})
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(a, b); d != "" {
		t.Errorf("same seed, different results (-sequential +4 workers):\n%s", d)
	}
	var ja, jb bytes.Buffer
	a.WriteJSON(&ja)
	b.WriteJSON(&jb)
	if !bytes.Equal(ja.Bytes(), jb.Bytes()) {
		t.Error("same seed, different JSON")
	}
	c, _ := env.Evaluate(s, pols, env.RunOptions{NumTasks: 100, Seed: 10})
	if cmp.Equal(a, c) {
		t.Error("seeds 9 and 10 gave identical results")
	}
}

func TestResultsOutput(t *testing.T) {
	rs := env.Results{
		{Policy: "persist", Episodes: 10, Accuracy: 0.5, CILow: 0.2366, CIHigh: 0.7634, TokensPerTask: 1234,
			Actions: env.ActionShares{1, 0, 0}},
		{Policy: "threshold:0.9:0.3", Episodes: 10, Accuracy: 0.8, TokensPerTask: 99,
			Actions: env.ActionShares{0.5, 0.25, 0.25}},
	}
	var buf bytes.Buffer
	if err := rs.WriteTable(&buf); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("table:\n%s", buf.String())
	}
	col := strings.Index(lines[0], "accuracy")
	for _, l := range lines[1:] {
		if !strings.HasPrefix(l[col:], "0.") {
			t.Errorf("column accuracy not aligned:\n%s", buf.String())
		}
	}
	if !strings.Contains(lines[1], "[0.237, 0.763]") || !strings.Contains(lines[1], "1234") {
		t.Errorf("row %q", lines[1])
	}
	buf.Reset()
	if err := rs.WriteJSON(&buf); err != nil {
		t.Fatal(err)
	}
	var back []map[string]any
	if err := json.Unmarshal(buf.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"policy", "accuracy", "ci95_low", "ci95_high", "tokens_per_task", "actions", "episodes"} {
		if _, ok := back[0][key]; !ok {
			t.Errorf("JSON lacks %q: %s", key, buf.String())
		}
	}
	if back[1]["actions"].(map[string]any)["concede"] != 0.25 {
		t.Errorf("JSON actions %v", back[1]["actions"])
	}
}

func TestTally(t *testing.T) {
	c := 0.9
	a := metapolicy.Concede
	lp := -0.1
	ep := data.Episode{ID: "x", Task: "t", Gold: "1", Agents: 2, Rounds: []data.Round{
		{Turns: []data.Turn{{Answer: "1", Tokens: 100}, {Answer: "2", Confidence: &c, Tokens: 100}}},
		{Turns: []data.Turn{{Answer: "1", Action: &a, LogProb: &lp, Tokens: 20}, {Answer: "1", Action: &a, LogProb: &lp, Tokens: 20}}},
	}}
	var tl env.Tally
	if err := tl.Add(&ep); err != nil {
		t.Fatal(err)
	}
	// Round 0 ties 1–1; summed confidence picks "2": wrong. Round 1 is right.
	r := tl.Result()
	if r.Correct != 1 || r.Round0Accuracy != 0 || r.TokensPerTask != 240 || r.Actions[metapolicy.Concede] != 1 {
		t.Errorf("result %+v", r)
	}
	unknown := ep
	unknown.Gold = ""
	if err := tl.Add(&unknown); err != nil {
		t.Fatal(err)
	}
	if r := tl.Result(); r.Episodes != 2 || r.Scored != 1 || r.Accuracy != 1 || r.Tasks != 1 {
		t.Errorf("unscored episode: %+v", r)
	}
	bad := []data.Episode{
		{ID: "one agent", Agents: 1, Rounds: ep.Rounds},
		{ID: "no rounds", Agents: 2},
		{ID: "short round", Agents: 3, Rounds: ep.Rounds},
	}
	inv := metapolicy.Action(9)
	badAction := ep
	badAction.Rounds = []data.Round{ep.Rounds[0], {Turns: []data.Turn{ep.Rounds[1].Turns[0], {Answer: "1", Action: &inv}}}}
	bad = append(bad, badAction)
	before := tl.Result()
	for _, b := range bad {
		if err := tl.Add(&b); err == nil {
			t.Errorf("%s: accepted", b.ID)
		}
	}
	if d := cmp.Diff(before, tl.Result()); d != "" {
		t.Errorf("a rejected episode changed the tally (-before +after):\n%s", d)
	}
}
