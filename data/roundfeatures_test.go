package data_test

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
)

// TestRoundFeaturesIsPerAgent: RoundFeatures gives, bit for bit, each
// agent's Featurize of ep.Observation(t, i) in both layouts, on simulated
// episodes of 2 to 7 agents with missing confidences; a bad state fails
// with Featurize's own error, naming the first agent it fails for.
func TestRoundFeaturesIsPerAgent(t *testing.T) {
	var eps []data.Episode
	for _, agents := range []int{2, 3, 7} {
		s, err := sim.New(sim.Config{Agents: agents, MissingConfidence: 0.3})
		if err != nil {
			t.Fatal(err)
		}
		pol, _ := metapolicy.ParseHeuristic(metapolicy.HeuristicRandom)
		got, err := env.Collect(s, pol, env.RunOptions{NumTasks: 30, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		eps = append(eps, got...)
	}
	for _, fz := range metapolicy.Featurizers() {
		for e := range eps {
			ep := &eps[e]
			for r := 1; r < len(ep.Rounds); r++ {
				rows, _, err := data.RoundFeatures(ep, r, fz)
				if err != nil {
					t.Fatal(err)
				}
				for i := range ep.Rounds[r].Turns {
					obs := ep.Observation(r, i)
					want := make([]float64, fz.Width)
					if err := fz.Featurize(want, &obs); err != nil {
						t.Fatal(err)
					}
					for k := range want {
						if math.Float64bits(rows[i][k]) != math.Float64bits(want[k]) {
							t.Fatalf("%s: %s round %d agent %d feature %d: %v, Featurize %v", fz.Version, ep.ID, r, i, k, rows[i][k], want[k])
						}
					}
				}
			}
		}
	}
	ep := &eps[len(eps)-1]
	c := 1.5
	ep.Rounds[0].Turns[4].Confidence = &c // out of [0, 1]: every agent's row of round 1 fails
	obs := ep.Observation(1, 0)
	wantErr := metapolicy.Featurize(make([]float64, metapolicy.FeatureWidth), &obs)
	if _, agent, err := data.RoundFeatures(ep, 1, metapolicy.Featurizers()[0]); err == nil || agent != 0 ||
		wantErr == nil || err.Error() != wantErr.Error() || !strings.Contains(err.Error(), "1.5") {
		t.Fatalf("a bad confidence: agent %d, %v; want agent 0, %v", agent, err, wantErr)
	}
}

// TestDecisionsInLayout: DecisionsIn in a layout is
// Decisions with every row's features replaced, bit for bit, by that
// layout's RoundFeatures; in the default layout it is Decisions.
func TestDecisionsInLayout(t *testing.T) {
	s, err := sim.New(sim.Config{Agents: 3, MissingConfidence: 0.3})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := metapolicy.ParseHeuristic(metapolicy.HeuristicRandom)
	eps, err := env.Collect(s, pol, env.RunOptions{NumTasks: 20, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	cfg := data.RewardConfig{Lambda: 0.3, Gamma: 0.9}
	rows := 0
	for _, fz := range metapolicy.Featurizers() {
		for e := range eps {
			ep := &eps[e]
			want, err := data.Decisions(ep, cfg)
			if err != nil {
				t.Fatal(err)
			}
			got, err := data.DecisionsIn(ep, cfg, fz)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d decisions, want %d", ep.ID, len(got), len(want))
			}
			k := 0
			for r := 1; r < len(ep.Rounds); r++ {
				f, _, err := data.RoundFeatures(ep, r, fz)
				if err != nil {
					t.Fatal(err)
				}
				for i := range f {
					g, w := got[k], want[k]
					if !slices.Equal(g.Features, f[i]) {
						t.Fatalf("%s: %s round %d agent %d: features differ from RoundFeatures", fz.Version, ep.ID, r, i)
					}
					g.Features, w.Features = nil, nil
					if d := cmp.Diff(w, g); d != "" {
						t.Fatalf("%s: %s round %d agent %d: (-Decisions +RoundFeatures):\n%s", fz.Version, ep.ID, r, i, d)
					}
					k++
					rows++
				}
			}
		}
	}
	if rows == 0 {
		t.Fatal("no decision compared")
	}
}
