package metapolicy

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func peerSlot(f []float64, j int) []float64 {
	return f[FeatureWidth+j*PeerWidth : FeatureWidth+(j+1)*PeerWidth]
}

func checkSlot(t *testing.T, name string, got []float64, want map[int]float64) {
	t.Helper()
	for k := range PeerWidth {
		if math.Abs(got[k]-want[k]) > 1e-12 {
			t.Errorf("%s feature %d = %v, want %v", name, k, got[k], want[k])
		}
	}
}

// Two agents: one peer slot, six zero slots; the own part is v1's.
func TestFeaturizePeersTwoAgents(t *testing.T) {
	obs := Observation{Self: 1, Round: 2, Rounds: 3, Agents: []AgentState{
		{Answer: "4", Confidence: 0.7, Profile: Profile{Steps: 63, Tokens: 4095, Hedges: 15, SelfConfidence: 0.25}},
		{Answer: "4", Confidence: Missing, Profile: Profile{SelfConfidence: Missing}},
	}}
	f := make([]float64, FeatureWidthPeers)
	if err := FeaturizePeers(f, &obs); err != nil {
		t.Fatal(err)
	}
	v1 := make([]float64, FeatureWidth)
	if err := Featurize(v1, &obs); err != nil {
		t.Fatal(err)
	}
	for k := range v1 {
		if f[k] != v1[k] {
			t.Fatalf("own feature %d = %v, v1 gives %v", k, f[k], v1[k])
		}
	}
	// Peer 0 is agent (1+1) mod 2 = 0; the team answer and the concede
	// target are both "4".
	checkSlot(t, "slot 0", peerSlot(f, 0), map[int]float64{
		PPresent: 1, PHasAnswer: 1, PAgrees: 1, PHoldsTeam: 1, PHoldsTarget: 1,
		PConf: 0.7, PSelfConf: 0.25, PTokens: 1, PSteps: 1, PHedges: 1,
	})
	for j := 1; j < PeerSlots; j++ {
		checkSlot(t, "empty slot", peerSlot(f, j), nil)
	}
}

// Three agents with an unreadable answer and missing confidences: the
// peers come in the order self+1, self+2 (mod N).
func TestFeaturizePeersThreeAgents(t *testing.T) {
	obs := Observation{Self: 1, Round: 1, Rounds: 2, Agents: []AgentState{
		{Answer: "7", Confidence: 0.9, Profile: Profile{Tokens: 3, SelfConfidence: Missing}},
		{Answer: "5", Confidence: 0.2, Profile: Profile{SelfConfidence: Missing}},
		{Answer: "", Confidence: Missing, Profile: Profile{Steps: 1, SelfConfidence: 0.5}},
	}}
	f := make([]float64, FeatureWidthPeers)
	if err := FeaturizePeers(f, &obs); err != nil {
		t.Fatal(err)
	}
	// Team: "7" and "5" have a vote each, "7" the higher confidence. Own
	// target (peers only): "7".
	checkSlot(t, "slot 0 (agent 2)", peerSlot(f, 0), map[int]float64{
		PPresent: 1, PConfMissing: 1, PSelfConf: 0.5, PSteps: math.Log(2) / math.Log(64),
	})
	checkSlot(t, "slot 1 (agent 0)", peerSlot(f, 1), map[int]float64{
		PPresent: 1, PHasAnswer: 1, PHoldsTeam: 1, PHoldsTarget: 1, PConf: 0.9, PSelfConfMissing: 1,
		PTokens: math.Log(4) / math.Log(4096),
	})
	checkSlot(t, "slot 2", peerSlot(f, 2), nil)

	// An unreadable own answer agrees with no one, not even another
	// unreadable one.
	obs.Self = 2
	obs.Agents[0].Answer = ""
	if err := FeaturizePeers(f, &obs); err != nil {
		t.Fatal(err)
	}
	if s := peerSlot(f, 0); s[PPresent] != 1 || s[PHasAnswer] != 0 || s[PAgrees] != 0 {
		t.Errorf("unreadable peer of an unreadable self: slot %v", s)
	}
}

// Eight agents fill all seven slots; the rows of every agent are
// FeaturizeTeamPeers' bit for bit; permuting the peers permutes the slots.
func TestFeaturizePeersEightAgents(t *testing.T) {
	var agents []AgentState
	for i := range 8 {
		c := Missing
		if i%3 != 0 {
			c = float64(i) / 10
		}
		ans := string(rune('a' + i%3))
		if i == 5 {
			ans = ""
		}
		agents = append(agents, AgentState{Answer: ans, Confidence: c, Profile: Profile{Tokens: i, SelfConfidence: Missing}})
	}
	obs := Observation{Self: 6, Round: 3, Rounds: 3, Agents: agents}
	f := make([]float64, FeatureWidthPeers)
	if err := FeaturizePeers(f, &obs); err != nil {
		t.Fatal(err)
	}
	// Answers a b c a b "" a b; confidences - .1 .2 - .4 .5 - .7.
	// Team: a 3 votes (conf 0), b 3 votes (conf 1.2) → b. Self 6 holds a;
	// peers' tallies: a 2 (0), b 3 (1.2), c 1 (.2) → target b.
	order := []int{7, 0, 1, 2, 3, 4, 5}
	for j, a := range order {
		s := peerSlot(f, j)
		ans := agents[a].Answer
		want := map[int]float64{
			PPresent: 1, PHasAnswer: flag(ans != ""), PAgrees: flag(ans == "a"),
			PHoldsTeam: flag(ans == "b"), PHoldsTarget: flag(ans == "b"),
			PConf: orZero(agents[a].Confidence), PConfMissing: flag(a%3 == 0),
			PSelfConfMissing: 1, PTokens: math.Log1p(float64(a)) / math.Log(4096),
		}
		checkSlot(t, "slot of agent "+string(rune('0'+a)), s, want)
	}
	team := make([]float64, 8*FeatureWidthPeers)
	targets := make([]string, 8)
	if _, err := FeaturizeTeamPeers(team, targets, &obs); err != nil {
		t.Fatal(err)
	}
	one := make([]float64, FeatureWidthPeers)
	for s := range 8 {
		obs.Self = s
		if err := FeaturizePeers(one, &obs); err != nil {
			t.Fatal(err)
		}
		for k, v := range one {
			if math.Float64bits(v) != math.Float64bits(team[s*FeatureWidthPeers+k]) {
				t.Fatalf("agent %d feature %d: team %v, one %v", s, k, team[s*FeatureWidthPeers+k], v)
			}
		}
	}
}

// Random teams of 2..8: FeaturizeTeamPeers equals FeaturizePeers, every
// row's own part is v1's, and the slots past N−1 are zero.
func TestFeaturizePeersRandomTeams(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 300 {
		obs := randomPeersObs(rng, 2+rng.IntN(7))
		n := len(obs.Agents)
		team := make([]float64, n*FeatureWidthPeers)
		if _, err := FeaturizeTeamPeers(team, make([]string, n), &obs); err != nil {
			t.Fatal(err)
		}
		for s := range n {
			obs.Self = s
			row := team[s*FeatureWidthPeers : (s+1)*FeatureWidthPeers]
			one := make([]float64, FeatureWidthPeers)
			v1 := make([]float64, FeatureWidth)
			if err := FeaturizePeers(one, &obs); err != nil {
				t.Fatal(err)
			}
			if err := Featurize(v1, &obs); err != nil {
				t.Fatal(err)
			}
			for k := range one {
				if math.Float64bits(one[k]) != math.Float64bits(row[k]) {
					t.Fatalf("trial %d agent %d feature %d: %v vs %v", trial, s, k, one[k], row[k])
				}
				if k < FeatureWidth && one[k] != v1[k] {
					t.Fatalf("trial %d: own feature %d differs from v1", trial, k)
				}
				if k >= FeatureWidth+(n-1)*PeerWidth && one[k] != 0 {
					t.Fatalf("trial %d (%d agents): feature %d of an empty slot = %v", trial, n, k, one[k])
				}
			}
		}
	}
}

func randomPeersObs(rng *rand.Rand, n int) Observation {
	obs := Observation{Round: 1 + rng.IntN(3), Rounds: 3}
	for range n {
		a := AgentState{Confidence: Missing, Profile: Profile{SelfConfidence: Missing,
			Tokens: rng.IntN(900), Steps: rng.IntN(9), Hedges: rng.IntN(3)}}
		if rng.IntN(5) > 0 {
			a.Answer = string(rune('1' + rng.IntN(3)))
		}
		if rng.IntN(3) > 0 {
			a.Confidence = rng.Float64()
		}
		if rng.IntN(2) > 0 {
			a.Profile.SelfConfidence = rng.Float64()
		}
		obs.Agents = append(obs.Agents, a)
	}
	return obs
}

func TestFeaturizePeersRefusesLargeTeams(t *testing.T) {
	obs := randomPeersObs(rand.New(rand.NewPCG(1, 1)), 9)
	want := "peers-v1 holds at most 8 agents, the team has 9"
	if err := FeaturizePeers(make([]float64, FeatureWidthPeers), &obs); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("FeaturizePeers: %v, want %q", err, want)
	}
	if _, err := FeaturizeTeamPeers(make([]float64, 9*FeatureWidthPeers), make([]string, 9), &obs); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("FeaturizeTeamPeers: %v, want %q", err, want)
	}
	if err := FeaturizePeers(make([]float64, FeatureWidth), &obs); err == nil {
		t.Error("a v1-width vector is accepted")
	}
	if fz, err := FeaturizerFor(FeatureVersionPeers); err != nil || fz.Width != 110 {
		t.Errorf("FeaturizerFor(%q) = %v, %v", FeatureVersionPeers, fz.Width, err)
	}
}
