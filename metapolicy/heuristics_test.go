package metapolicy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func obsWithConf(c float64) *Observation {
	return &Observation{Self: 1, Round: 1, Rounds: 3, Agents: []AgentState{
		{Answer: "1", Confidence: 0.99}, {Answer: "2", Confidence: c}, {Answer: "1", Confidence: Missing},
	}}
}

func TestHeuristicDistributions(t *testing.T) {
	third := 1.0 / 3
	for _, c := range []struct {
		spec string
		conf float64
		want [NumActions]float64
	}{
		{"persist", 0.1, [3]float64{1, 0, 0}},
		{"refine", 0.9, [3]float64{0, 1, 0}},
		{"debate", 0.9, [3]float64{0, 1, 0}},
		{"random", 0.5, [3]float64{third, third, third}},
		{"threshold", 0.8, [3]float64{1, 0, 0}}, // ≥ high persists
		{"threshold", 0.95, [3]float64{1, 0, 0}},
		{"threshold", 0.79, [3]float64{0, 1, 0}},
		{"threshold", 0.4, [3]float64{0, 1, 0}}, // = low refines
		{"threshold", 0.39, [3]float64{0, 0, 1}},
		{"threshold", 0, [3]float64{0, 0, 1}},
		{"threshold", Missing, [3]float64{0, 1, 0}},
		{"threshold:0.9:0.2", 0.85, [3]float64{0, 1, 0}},
		{"threshold:0.9:0.2", 0.9, [3]float64{1, 0, 0}},
		{"threshold:0.9:0.2", 0.3, [3]float64{0, 1, 0}},
		{"threshold:0.9:0.2", 0.1, [3]float64{0, 0, 1}},
		{"threshold:0.5:0.5", 0.49, [3]float64{0, 0, 1}},
		{"threshold:0.5:0.5", 0.5, [3]float64{1, 0, 0}},
	} {
		p, err := ParseHeuristic(c.spec)
		if err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		var got [NumActions]float64
		got[0] = 7 // Probs must overwrite every entry
		if err := p.Probs(&got, obsWithConf(c.conf)); err != nil {
			t.Fatalf("%s: %v", c.spec, err)
		}
		if got != c.want {
			t.Errorf("%s at confidence %v: %v, want %v", c.spec, c.conf, got, c.want)
		}
		if sum := got[0] + got[1] + got[2]; math.Abs(sum-1) > 1e-15 {
			t.Errorf("%s: probabilities sum to %v", c.spec, sum)
		}
	}
}

func TestHeuristicNamesAndParse(t *testing.T) {
	for _, n := range HeuristicNames() {
		p, err := NewHeuristic(n)
		if err != nil {
			t.Fatal(err)
		}
		if p.Name() != n {
			t.Errorf("Name %q, want %q", p.Name(), n)
		}
		if n == HeuristicPersist {
			t.Error("the alias persist is listed")
		}
		sr, ok := p.(SelfRefiner)
		if !ok || sr.SelfRefine() != (n == HeuristicRefine) {
			t.Errorf("%s: SelfRefine wrong", n)
		}
	}
	// persist is majority under its old name, and keeps that name.
	alias, err := ParseHeuristic("persist")
	if err != nil || alias.Name() != "persist" {
		t.Errorf("persist alias: %v, %v", alias, err)
	}
	p, err := NewHeuristic(HeuristicThreshold, WithThresholds(0.9, 0.25))
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "threshold:0.9:0.25" {
		t.Errorf("Name %q", p.Name())
	}
	q, err := ParseHeuristic(p.Name())
	if err != nil || q.Name() != p.Name() {
		t.Errorf("ParseHeuristic(%q) = %v, %v", p.Name(), q, err)
	}
	if d, _ := NewHeuristic(HeuristicThreshold, WithThresholds(DefaultHigh, DefaultLow)); d.Name() != "threshold" {
		t.Errorf("default thresholds named %q", d.Name())
	}
}

func TestHeuristicErrors(t *testing.T) {
	for _, spec := range []string{
		"", "Persist", "debate2", "persist:1:0", "threshold:0.9", "threshold:x:0.1", "threshold:0.9:y",
		"threshold:0.3:0.6", "threshold:1.2:0.1", "threshold:0.5:-0.1", "threshold:NaN:0.1",
	} {
		if _, err := ParseHeuristic(spec); err == nil {
			t.Errorf("ParseHeuristic(%q): no error", spec)
		} else if !strings.HasPrefix(err.Error(), "metapolicy: ") {
			t.Errorf("ParseHeuristic(%q): error %q lacks its origin", spec, err)
		}
	}
	if _, err := NewHeuristic(HeuristicDebate, WithThresholds(0.9, 0.1)); err == nil {
		t.Error("debate took thresholds")
	}
	p, _ := NewHeuristic(HeuristicPersist)
	var pr [NumActions]float64
	bad := &Observation{Self: 5, Round: 1, Rounds: 3, Agents: make([]AgentState, 2)}
	if err := p.Probs(&pr, bad); err == nil {
		t.Error("Probs accepted self outside the team")
	}
}

// TestHeuristicSampling checks that the one-hot baselines sample their
// action with log-probability 0 and random its uniform log(1/3).
func TestHeuristicSampling(t *testing.T) {
	obs := obsWithConf(0.1)
	for spec, want := range map[string]Action{"persist": Persist, "debate": Refine, "threshold": Concede} {
		p, _ := ParseHeuristic(spec)
		a, lp, err := Greedy(p, obs)
		if err != nil || a != want || lp != 0 {
			t.Errorf("%s: Greedy %v %v %v, want %v 0", spec, a, lp, err, want)
		}
	}
	p, _ := NewHeuristic(HeuristicRandom)
	rng := rand.New(rand.NewPCG(1, 2))
	var count [NumActions]int
	for range 3000 {
		a, lp, err := Sample(p, obs, rng)
		if err != nil || math.Abs(lp-math.Log(1.0/3)) > 1e-12 {
			t.Fatalf("random: Sample %v %v %v", a, lp, err)
		}
		count[a]++
	}
	for a, k := range count {
		if k < 900 || k > 1100 {
			t.Errorf("random took %v %d times of 3000", Action(a), k)
		}
	}
}

// history builds the observation of round len(rounds) for agent self:
// rounds[r] are the answers of round r.
func history(self int, rounds ...[]string) *Observation {
	last := rounds[len(rounds)-1]
	o := &Observation{Self: self, Round: len(rounds), Rounds: 3, History: rounds}
	for _, a := range last {
		o.Agents = append(o.Agents, AgentState{Answer: a, Confidence: Missing, Profile: Profile{SelfConfidence: Missing}})
	}
	return o
}

// TestRoundZeroBaselines checks the actions of majority, gate and
// until-consensus on observations of rounds 1 to 3.
func TestRoundZeroBaselines(t *testing.T) {
	agree, split := []string{"7", "7", "7"}, []string{"7", "8", "7"}
	blank := []string{"", "", ""}
	for _, c := range []struct {
		policy string
		obs    *Observation
		want   Action
	}{
		{"majority", history(0, split), Persist},
		{"majority", history(2, split, split, split), Persist},
		{"persist", history(1, split, agree), Persist},
		// gate: round 0 decides for the whole episode.
		{"gate", history(0, agree), Persist},
		{"gate", history(1, split), Refine},
		{"gate", history(2, agree, split, split), Persist}, // round 0 agreed: keep persisting
		{"gate", history(0, split, agree), Refine},         // round 0 split: debate to the end
		{"gate", history(0, split, agree, agree), Refine},
		{"gate", history(0, blank), Refine}, // nobody readable is no agreement
		// until-consensus: the previous round decides.
		{"until-consensus", history(0, split), Refine},
		{"until-consensus", history(1, agree), Persist},
		{"until-consensus", history(2, split, agree), Persist},
		{"until-consensus", history(0, agree, split), Refine},
		{"until-consensus", history(0, split, split, agree), Persist},
		{"until-consensus", history(0, blank), Refine},
	} {
		p, err := ParseHeuristic(c.policy)
		if err != nil {
			t.Fatal(err)
		}
		a, lp, err := Greedy(p, c.obs)
		if err != nil || a != c.want || lp != 0 {
			t.Errorf("%s in round %d after %q: %v (log p %v, err %v), want %v",
				c.policy, c.obs.Round, c.obs.History, a, lp, err, c.want)
		}
		// Without History, round 1 still works: Agents are round 0.
		if c.obs.Round == 1 {
			bare := *c.obs
			bare.History = nil
			if b, _, err := Greedy(p, &bare); err != nil || b != a {
				t.Errorf("%s in round 1 without history: %v %v, want %v", c.policy, b, err, a)
			}
		}
	}
	gate, _ := NewHeuristic(HeuristicGate)
	bare := *history(0, agree, agree)
	bare.History = nil
	var pr [NumActions]float64
	if err := gate.Probs(&pr, &bare); err == nil || !strings.Contains(err.Error(), "history") {
		t.Errorf("gate in round 2 without history: err %v", err)
	}
}
