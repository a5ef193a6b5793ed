package metapolicy

import (
	"math"
	"slices"
	"testing"
)

func TestFeaturizeV2KnownValues(t *testing.T) {
	// Round 2 of 2, agent 0, which moved 5 → 7. Round 0: 5, 7, 7 (team 7);
	// round 1: 7, 7, 9.
	obs := Observation{Self: 0, Round: 2, Rounds: 2,
		Agents:  []AgentState{agent("7", Missing, 100), agent("7", Missing, 200), agent("9", Missing, 300)},
		History: [][]string{{"5", "7", "7"}, {"7", "7", "9"}},
	}
	f := make([]float64, FeatureWidthV2)
	if err := FeaturizeV2(f, &obs); err != nil {
		t.Fatal(err)
	}
	v1 := make([]float64, FeatureWidth)
	if err := Featurize(v1, &obs); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f[:FeatureWidth], v1) {
		t.Errorf("v2 prefix %v differs from v1 %v", f[:FeatureWidth], v1)
	}
	want := map[int]float64{
		FHistoryMissing: 0, FChangedLast: 1, FChanges: 0.5, FOwnIsFirst: 0, FOwnIsFirstTeam: 1,
		FPeersChanged: 0.5, FMajorityDelta: 0, FOwnSupportDelta: 0, FTeamStable: 1,
		FMargin: 1.0 / 3, FOwnMargin: 1.0 / 3,
		FRelTokens: v1[FTokens] - v1[FPeerTokens], FRelSteps: 0, FRelHedges: 0,
	}
	for i, w := range want {
		if math.Abs(f[i]-w) > 1e-12 {
			t.Errorf("feature %d = %v, want %v", i, f[i], w)
		}
	}
	// Agent 2 changed 7 → 9 last round and now stands alone.
	obs.Self = 2
	if err := FeaturizeV2(f, &obs); err != nil {
		t.Fatal(err)
	}
	for i, w := range map[int]float64{FChangedLast: 1, FOwnIsFirst: 0, FOwnIsFirstTeam: 0, FPeersChanged: 0.5,
		FOwnSupportDelta: 1.0 / 3, FOwnMargin: -1.0 / 3} {
		if math.Abs(f[i]-w) > 1e-12 {
			t.Errorf("agent 2: feature %d = %v, want %v", i, f[i], w)
		}
	}
}

func TestFeaturizeV2MissingHistory(t *testing.T) {
	obs := Observation{Self: 0, Round: 1, Rounds: 2, Agents: []AgentState{agent("1", Missing, 1), agent("2", Missing, 1)}}
	f := make([]float64, FeatureWidthV2)
	if err := FeaturizeV2(f, &obs); err != nil {
		t.Fatal(err)
	}
	if f[FHistoryMissing] != 1 || f[FOwnIsFirst] != 0 {
		t.Errorf("missing history: flag %v, own-is-first %v; want 1, 0", f[FHistoryMissing], f[FOwnIsFirst])
	}
	obs.History = [][]string{{"1", "2"}, {"1", "2"}} // two rows in round 1
	if err := FeaturizeV2(f, &obs); err == nil {
		t.Error("a history longer than the round was accepted")
	}
	if err := FeaturizeV2(make([]float64, FeatureWidth), &obs); err == nil {
		t.Error("a v1-width vector was accepted")
	}
}

func TestFeaturizerFor(t *testing.T) {
	for v, w := range map[string]int{"": FeatureWidth, FeatureVersion: FeatureWidth, FeatureVersionV2: FeatureWidthV2} {
		fz, err := FeaturizerFor(v)
		if err != nil || fz.Width != w {
			t.Errorf("FeaturizerFor(%q): width %d, err %v; want %d", v, fz.Width, err, w)
		}
	}
	if _, err := FeaturizerFor("mpdf-features/v9"); err == nil {
		t.Error("unknown version accepted")
	}
}
