package metapolicy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// randomTeam draws a deliberation with many ties: few distinct answers,
// unreadable ones, confidences from a small set (so sums tie), missing ones.
func randomTeam(rng *rand.Rand) *Observation {
	n := 2 + rng.IntN(19) // past the 16-agent buffer too
	confs := []float64{0, 0.25, 0.5, 0.75, 1, 0.1, 0.2, 0.3}
	obs := &Observation{Rounds: 1 + rng.IntN(5), Agents: make([]AgentState, n)}
	obs.Round = 1 + rng.IntN(obs.Rounds)
	pick := func() float64 {
		if rng.IntN(4) == 0 {
			return Missing
		}
		if rng.IntN(3) == 0 {
			return rng.Float64()
		}
		return confs[rng.IntN(len(confs))]
	}
	for i := range obs.Agents {
		a := &obs.Agents[i]
		if rng.IntN(6) != 0 {
			a.Answer = string(rune('a' + rng.IntN(1+rng.IntN(5))))
		}
		a.Confidence = pick()
		a.Profile = Profile{Steps: rng.IntN(80), Tokens: rng.IntN(5000), Hedges: rng.IntN(20), SelfConfidence: pick()}
	}
	return obs
}

func TestFeaturizeTeamEqualsFeaturize(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 2))
	for trial := range 20000 {
		checkTeamRows(t, trial, randomTeam(rng), rng, FeatureWidth, "Featurize", FeaturizeTeam, Featurize)
	}
}

// checkTeamRows holds a team featurizer to its per-agent twin on obs: the
// team answer is TeamAnswer's, every row is, bit for bit, what perAgent
// gives with that agent as Self (every value written: dst starts as NaN),
// and every concede target is ConcedeTarget's. obs.Self is set at random
// first: the team featurizer must ignore it.
func checkTeamRows(t *testing.T, trial int, obs *Observation, rng *rand.Rand, width int, name string,
	team func([]float64, []string, *Observation) (string, error), perAgent func([]float64, *Observation) error) {
	t.Helper()
	n := len(obs.Agents)
	dst := make([]float64, n*width)
	for i := range dst {
		dst[i] = math.NaN()
	}
	targets := make([]string, n)
	obs.Self = rng.IntN(n) // ignored
	got, err := team(dst, targets, obs)
	if err != nil {
		t.Fatalf("trial %d: %v", trial, err)
	}
	answers, conf := make([]string, n), make([]float64, n)
	for i, a := range obs.Agents {
		answers[i], conf[i] = a.Answer, a.Confidence
	}
	if want := TeamAnswer(answers, conf, -1); got != want {
		t.Fatalf("trial %d: team %q, TeamAnswer %q", trial, got, want)
	}
	f := make([]float64, width)
	for s := range n {
		o := *obs
		o.Self = s
		if err := perAgent(f, &o); err != nil {
			t.Fatal(err)
		}
		for k, v := range f {
			if got := dst[s*width+k]; math.Float64bits(got) != math.Float64bits(v) {
				t.Fatalf("trial %d agent %d feature %s: %v, %s %v", trial, s, FeatureName(k), got, name, v)
			}
		}
		if want := ConcedeTarget(answers, conf, s); targets[s] != want {
			t.Fatalf("trial %d agent %d: target %q, ConcedeTarget %q", trial, s, targets[s], want)
		}
	}
}

func TestFeaturizeTeamRejects(t *testing.T) {
	obs := &Observation{Round: 1, Rounds: 2, Agents: []AgentState{{Answer: "1"}, {Answer: "2"}}}
	for _, c := range []struct {
		dst     int
		targets int
		mutate  func(*Observation)
		want    string
	}{
		{dst: FeatureWidth, targets: 2, want: "feature matrix of length 26"},
		{dst: 2 * FeatureWidth, targets: 1, want: "1 concede targets for 2 agents"},
		{dst: 2 * FeatureWidth, targets: 2, mutate: func(o *Observation) { o.Round = 3 }, want: "round 3 of 2"},
		{dst: 2 * FeatureWidth, targets: 2, mutate: func(o *Observation) { o.Agents[1].Confidence = 1.5 }, want: "agent 1: confidence 1.5"},
	} {
		o := *obs
		o.Agents = append([]AgentState(nil), obs.Agents...)
		if c.mutate != nil {
			c.mutate(&o)
		}
		_, err := FeaturizeTeam(make([]float64, c.dst), make([]string, c.targets), &o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// FeaturizeTeam's doc promises no allocation for teams of up to 16 agents.
func TestFeaturizeTeamAllocatesNothing(t *testing.T) {
	obs := &Observation{Round: 1, Rounds: 3, Agents: []AgentState{
		{Answer: "18", Confidence: 0.9, Profile: Profile{Steps: 4, Tokens: 200, SelfConfidence: Missing}},
		{Answer: "16", Confidence: Missing, Profile: Profile{Steps: 2, SelfConfidence: 0.5}},
		{Answer: "", Confidence: 0.2, Profile: Profile{SelfConfidence: Missing}},
	}}
	dst := make([]float64, len(obs.Agents)*FeatureWidth)
	targets := make([]string, len(obs.Agents))
	if a := testing.AllocsPerRun(100, func() {
		if _, err := FeaturizeTeam(dst, targets, obs); err != nil {
			t.Fatal(err)
		}
	}); a != 0 {
		t.Errorf("FeaturizeTeam allocates %v times per call, want 0", a)
	}
}
