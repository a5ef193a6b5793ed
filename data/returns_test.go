package data

import (
	"encoding/json"
	"io"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// creditEpisode: 3 rounds, 2 agents, gold "4". Worked out by hand
// (design §2; ties of the team vote go to the lowest agent index, no
// confidence):
//
//	round 0: "3" "4"
//	round 1: "3" "4"  team "3" wrong; A0: local 0, global 0−1 = −1 → −1; A1: 0, 0−0 → 0
//	round 2: "4" "4"  team right;     A0: local 1, global 1−1 → 1;        A1: 0, 1−1 → 0
//	round 3: "4" "5"  team "4" right; A0: local 0, global 1−0 → 1;        A1: −1, 1−1 → −1
//
// Returns with γ = 0.5, from the last round back:
//
//	A0: G3 = 1, G2 = 1 + 0.5·1 = 1.5,     G1 = −1 + 0.5·1.5 = −0.25
//	A1: G3 = −1, G2 = 0 + 0.5·(−1) = −0.5, G1 = 0 + 0.5·(−0.5) = −0.25
func creditEpisode() *Episode {
	ep := episodeOf("4", [][]string{{"3", "4"}, {"3", "4"}, {"4", "4"}, {"4", "5"}}, nil)
	ep.Rounds[1].Turns[1].Action = ptr(metapolicy.Persist)
	ep.Rounds[2].Turns[1].Action = ptr(metapolicy.Persist)
	ep.Rounds[3].Turns[0].Action = ptr(metapolicy.Persist)
	return ep
}

func TestReturnsByHand(t *testing.T) {
	ep := creditEpisode()
	rw, err := Rewards(ep, DefaultRewardConfig())
	if err != nil {
		t.Fatal(err)
	}
	wantR := [][]float64{nil, {-1, 0}, {1, 0}, {1, -1}}
	for tt := 1; tt < 4; tt++ {
		for i := range 2 {
			if rw[tt][i] != wantR[tt][i] {
				t.Errorf("reward round %d agent %d = %v, want %v (by hand)", tt, i, rw[tt][i], wantR[tt][i])
			}
		}
	}
	cfg := DefaultRewardConfig()
	cfg.Gamma = 0.5
	ds, err := Decisions(ep, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Decisions come round by round, agent by agent.
	want := []float64{-0.25, -0.25, 1.5, -0.5, 1, -1}
	for k, d := range ds {
		if d.Reward != want[k] {
			t.Errorf("γ=0.5: decision %d (round %d agent %d) return %v, want %v", k, 1+k/2, k%2, d.Reward, want[k])
		}
	}
	// γ = 1: the undiscounted sums; A0: −1+1+1 = 1, 1+1 = 2, 1; A1: −1, −1, −1.
	cfg.Gamma = 1
	ds, _ = Decisions(ep, cfg)
	want = []float64{1, -1, 2, -1, 1, -1}
	for k, d := range ds {
		if d.Reward != want[k] {
			t.Errorf("γ=1: decision %d return %v, want %v", k, d.Reward, want[k])
		}
	}
}

// γ = 0 is the round's own reward, bit for bit, including −0 from a token
// cost of zero tokens.
func TestReturnsGammaZeroIsReward(t *testing.T) {
	ep := creditEpisode()
	ep.Rounds[2].Turns[0].Tokens = 333
	cfg := RewardConfig{WLocal: 1, WGlobal: 0.5, Lambda: 0.7}
	rw, _ := Rewards(ep, cfg)
	ds, err := Decisions(ep, cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k, d := range ds {
		if r := rw[1+k/2][k%2]; math.Float64bits(d.Reward) != math.Float64bits(r) {
			t.Errorf("γ=0: decision %d reward %v, want the round's %v", k, d.Reward, r)
		}
	}
	b, _ := json.Marshal(cfg)
	if strings.Contains(string(b), "gamma") {
		t.Errorf("γ=0 config JSON %s names gamma: configs written before it would change bytes", b)
	}
}

func TestReturnsGammaValidate(t *testing.T) {
	ep := creditEpisode()
	for _, g := range []float64{-0.1, 1.5, math.NaN(), math.Inf(1)} {
		cfg := DefaultRewardConfig()
		cfg.Gamma = g
		if _, err := Decisions(ep, cfg); err == nil || !strings.Contains(err.Error(), "gamma") {
			t.Errorf("γ=%v: err %v, want one naming gamma", g, err)
		}
	}
}

// Offline: each episode record is whole, so the stream computes the same
// returns as Decisions; a decision record has no episode and is refused
// with its position.
func TestReturnsStream(t *testing.T) {
	dir := t.TempDir()
	ep := creditEpisode()
	b, _ := json.Marshal(ep)
	d, _ := json.Marshal(Decision{Kind: KindDecision, Group: "g", Features: make([]float64, metapolicy.FeatureWidth), Reward: 1})
	path := writeFile(t, dir, "r.jsonl", string(b)+"\n"+string(b)+"\n"+string(d)+"\n")
	cfg := DefaultRewardConfig()
	cfg.Gamma = 0.5
	r, err := Open([]string{filepath.Join(dir, "*.jsonl")}, ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	s, err := NewDecisionStream(r, cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-0.25, -0.25, 1.5, -0.5, 1, -1}
	for k := range 2 * len(want) {
		dec, _, err := s.Next()
		if err != nil {
			t.Fatalf("decision %d: %v", k, err)
		}
		if dec.Reward != want[k%len(want)] {
			t.Errorf("decision %d: return %v, want %v", k, dec.Reward, want[k%len(want)])
		}
	}
	_, _, err = s.Next()
	if err == nil || err == io.EOF || !strings.Contains(err.Error(), path+":3") || !strings.Contains(err.Error(), "gamma") {
		t.Errorf("decision record with γ>0: err %v, want one naming %s:3 and gamma", err, path)
	}
}
