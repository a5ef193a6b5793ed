package metapolicy

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func agent(ans string, conf float64, tokens int) AgentState {
	return AgentState{Answer: ans, Confidence: conf, Profile: Profile{Steps: 3, Tokens: tokens, SelfConfidence: Missing}}
}

func TestFeaturizeKnownValues(t *testing.T) {
	obs := Observation{Self: 0, Round: 1, Rounds: 3, Agents: []AgentState{
		agent("12", Missing, 100), agent("12", 0.8, 200), agent("7", 0.9, 300),
	}}
	f := make([]float64, FeatureWidth)
	if err := Featurize(f, &obs); err != nil {
		t.Fatal(err)
	}
	want := map[int]float64{
		FHasAnswer: 1, FOwnShare: 2.0 / 3, FOwnIsTeam: 1, FDistinct: 2.0 / 3,
		FConf: 0, FConfMissing: 1, FSelfConfMissing: 1,
		FPeerConfMean: 0.85, FPeerConfMax: 0.9, FPeerConfMin: 0.8, FPeerConfMissing: 0,
		FPeerAgree: 0.5, FPeerAgreeConf: 0.4, FTargetShare: 0.5, FTargetConf: 0.9, FTargetIsOwn: 0,
		FRound: 1.0 / 3, FLastRound: 0, FTeamSize: math.Log(3) / math.Log(8),
	}
	for i, w := range want {
		if math.Abs(f[i]-w) > 1e-12 {
			t.Errorf("feature %d = %v, want %v", i, f[i], w)
		}
	}
}

func TestFeaturizeMissingConfidenceIsFlagged(t *testing.T) {
	f0 := make([]float64, FeatureWidth)
	f1 := make([]float64, FeatureWidth)
	base := []AgentState{agent("1", 0, 10), agent("2", 0.5, 10)}
	o := Observation{Self: 0, Round: 1, Rounds: 2, Agents: base}
	if err := Featurize(f0, &o); err != nil {
		t.Fatal(err)
	}
	o.Agents = []AgentState{agent("1", Missing, 10), agent("2", 0.5, 10)}
	if err := Featurize(f1, &o); err != nil {
		t.Fatal(err)
	}
	if slices.Equal(f0, f1) {
		t.Fatal("a missing confidence encodes like a confidence of 0")
	}
	if f0[FConfMissing] != 0 || f1[FConfMissing] != 1 {
		t.Errorf("missing flags %v, %v", f0[FConfMissing], f1[FConfMissing])
	}
}

// Peers are pooled: permuting them must not change the vector, whatever N.
func TestFeaturizePeerOrderInvariant(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(6)
		agents := make([]AgentState, n)
		for i := range agents {
			c := rng.Float64()
			if rng.IntN(4) == 0 {
				c = Missing
			}
			agents[i] = agent(string(rune('a'+rng.IntN(3))), c, rng.IntN(500))
		}
		self := rng.IntN(n)
		a := make([]float64, FeatureWidth)
		b := make([]float64, FeatureWidth)
		o := Observation{Self: self, Round: 1, Rounds: 3, Agents: agents}
		if err := Featurize(a, &o); err != nil {
			t.Fatal(err)
		}
		// Reverse the peers, keep self where it is.
		perm := slices.Clone(agents)
		var peers []AgentState
		for i, ag := range agents {
			if i != self {
				peers = append(peers, ag)
			}
		}
		slices.Reverse(peers)
		k := 0
		for i := range perm {
			if i != self {
				perm[i] = peers[k]
				k++
			}
		}
		o.Agents = perm
		if err := Featurize(b, &o); err != nil {
			t.Fatal(err)
		}
		for i := range a {
			if math.Abs(a[i]-b[i]) > 1e-12 && i != FTargetShare && i != FTargetConf && i != FTargetIsOwn {
				t.Fatalf("trial %d: feature %d changed under peer permutation: %v vs %v", trial, i, a[i], b[i])
			}
		}
		for _, v := range a {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("non-finite feature in %v", a)
			}
		}
	}
}

func TestFeaturizeRejectsBadObservations(t *testing.T) {
	f := make([]float64, FeatureWidth)
	good := []AgentState{agent("1", 0.5, 1), agent("2", 0.5, 1)}
	for name, o := range map[string]Observation{
		"one agent":         {Self: 0, Round: 1, Rounds: 1, Agents: good[:1]},
		"self out of range": {Self: 2, Round: 1, Rounds: 1, Agents: good},
		"round 0":           {Self: 0, Round: 0, Rounds: 1, Agents: good},
		"round past end":    {Self: 0, Round: 3, Rounds: 2, Agents: good},
		"confidence 1.5":    {Self: 0, Round: 1, Rounds: 1, Agents: []AgentState{agent("1", 1.5, 1), good[1]}},
	} {
		if err := Featurize(f, &o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	o := Observation{Self: 0, Round: 1, Rounds: 1, Agents: good}
	if err := Featurize(make([]float64, FeatureWidth-1), &o); err == nil {
		t.Error("short destination accepted")
	}
}

// TestFeatureNames: every feature of the layout has its own name.
func TestFeatureNames(t *testing.T) {
	seen := map[string]bool{}
	for i := range FeatureWidth {
		n := FeatureName(i)
		if _, ok := featureNames[i]; !ok || seen[n] {
			t.Errorf("feature %d: name %q missing or repeated", i, n)
		}
		seen[n] = true
	}
}
