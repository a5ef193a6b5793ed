package data

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

// rewardCase is one episode of TestRewards and the rewards it must get.
type rewardCase struct {
	name    string
	gold    string
	answers [][]string
	conf    [][]float64
	tokens  [][]int // per round ≥ 1, nil = 0
	cfg     RewardConfig
	want    [][]float64 // rounds ≥ 1
}

// teamRewardCases are the local and global terms of the default weights:
// an agent's own answer, and the team's answer with and without it.
func teamRewardCases() []rewardCase {
	const m = -1 // missing confidence
	return []rewardCase{{
		// agent 0 becomes correct (local +1); the team is right with or
		// without any one agent, so no global term.
		name:    "local gain",
		gold:    "4",
		answers: [][]string{{"3", "4", "5"}, {"4", "4", "5"}},
		want:    [][]float64{{1, 0, 0}},
	}, {
		// Agent 0 turns wrong (local −1). Without agent 1 (or 2) the 1–1
		// tie goes to agent 0's wrong "5": they each carry the team (+1).
		name:    "local loss",
		gold:    "4",
		answers: [][]string{{"4", "4", "4"}, {"5", "4", "4"}},
		want:    [][]float64{{-1, 1, 1}},
	}, {
		// Without agent 0 the others tie 1–1 with no confidence, and the
		// lowest agent index (1, "5") wins: agent 0 was pivotal. Without
		// agent 2 the tie goes to agent 0's "4": not pivotal.
		name:    "without agent i, tie to lowest index",
		gold:    "4",
		answers: [][]string{{"4", "5", "4"}, {"4", "5", "4"}},
		want:    [][]float64{{1, 0, 0}},
	}, {
		// The same answers, but confidence breaks the ties: agent 1's 0.9
		// beats 0.3 and 0.2, so removing agent 0 or agent 2 flips the team.
		name:    "without agent i, tie by confidence",
		gold:    "4",
		answers: [][]string{{"4", "5", "4"}, {"4", "5", "4"}},
		conf:    [][]float64{{m, m, m}, {0.2, 0.9, 0.3}},
		want:    [][]float64{{1, 0, 1}},
	}, {
		// 2–2 tie after the round goes to the lowest index ("5", wrong);
		// without agent 0 or 1 the team is right: global −1 for them.
		name:    "tied team is wrong, removing a wrong agent fixes it",
		gold:    "4",
		answers: [][]string{{"5", "5", "4", "4"}, {"5", "5", "4", "4"}},
		want:    [][]float64{{-1, -1, 0, 0}},
	}, {
		// The full team ties 2–2; summed confidence 1.0 vs 0.2 picks "4".
		name:    "team tie broken by summed confidence",
		gold:    "4",
		answers: [][]string{{"5", "5", "4", "4"}, {"5", "5", "4", "4"}},
		conf:    [][]float64{{m, m, m, m}, {0.1, 0.1, 0.5, 0.5}},
		want:    [][]float64{{0, 0, 1, 1}},
	}, {
		name:    "empty answers are never correct",
		gold:    "4",
		answers: [][]string{{"4", "", "4"}, {"", "", "4"}},
		want:    [][]float64{{-1, 0, 1}},
	}, {
		name:    "several rounds compare with the previous round",
		gold:    "4",
		answers: [][]string{{"3", "3", "3"}, {"4", "3", "3"}, {"4", "4", "3"}},
		// Round 1: team "3" wrong; without agent 1 or 2 the 1–1 tie goes
		// to agent 0's right "4" (global −1). Round 2: team "4" right,
		// and still right without any one agent; agent 1 gained (+1).
		want: [][]float64{{1, -1, -1}, {0, 1, 0}},
	}}
}

// weightedRewardCases are the weights, the token cost and their defaults.
func weightedRewardCases() []rewardCase {
	return []rewardCase{{
		name:    "weights",
		gold:    "4",
		answers: [][]string{{"5", "5", "4"}, {"4", "5", "4"}},
		cfg:     RewardConfig{WLocal: 2, WGlobal: 0.5},
		// Agent 0: local +1 and pivotal (without it the 1–1 tie goes to
		// agent 1's "5"): 2·1 + 0.5·1.
		want: [][]float64{{2.5, 0, 0}},
	}, {
		name:    "only the global term",
		gold:    "4",
		answers: [][]string{{"4", "5", "4"}, {"4", "5", "4"}},
		cfg:     RewardConfig{WGlobal: 1},
		want:    [][]float64{{1, 0, 0}},
	}, {
		name:    "token cost",
		gold:    "4",
		answers: [][]string{{"4", "4", "4"}, {"4", "4", "4"}},
		tokens:  [][]int{{0, 500, 1500}},
		cfg:     RewardConfig{WLocal: 1, WGlobal: 1, Lambda: 2},
		want:    [][]float64{{0, -1, -3}},
	}, {
		name:    "zero config means the defaults",
		gold:    "4",
		answers: [][]string{{"3", "5", "4"}, {"4", "5", "4"}},
		tokens:  [][]int{{1000, 1000, 1000}},
		cfg:     RewardConfig{},
		// λ = 0: tokens cost nothing; agent 0: local 1, global 0
		// (without it, 1–1 tie → agent 1 "5" wrong → global 1).
		want: [][]float64{{2, 0, 0}},
	}}
}

func TestRewards(t *testing.T) {
	for _, tc := range append(teamRewardCases(), weightedRewardCases()...) {
		t.Run(tc.name, func(t *testing.T) {
			ep := episodeOf(tc.gold, tc.answers, tc.conf)
			for t1, row := range tc.tokens {
				for i, n := range row {
					ep.Rounds[t1+1].Turns[i].Tokens = n
				}
			}
			got, err := Rewards(ep, tc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.answers) || got[0] != nil {
				t.Fatalf("got %d rows with row 0 %v, want %d rows with row 0 nil", len(got), got[0], len(tc.answers))
			}
			for r, want := range tc.want {
				if !slices.Equal(got[r+1], want) {
					t.Errorf("round %d: rewards %v, want %v", r+1, got[r+1], want)
				}
			}
		})
	}
}

func TestRewardsNoGold(t *testing.T) {
	ep := episodeOf("", [][]string{{"4", "4"}, {"4", "4"}}, nil)
	if _, err := Rewards(ep, DefaultRewardConfig()); !errors.Is(err, ErrNoGold) {
		t.Errorf("Rewards without gold: %v, want ErrNoGold", err)
	}
	if _, err := Decisions(ep, DefaultRewardConfig()); !errors.Is(err, ErrNoGold) {
		t.Errorf("Decisions without gold: %v, want ErrNoGold", err)
	}
}

func TestRewardConfigValidate(t *testing.T) {
	ep := episodeOf("4", [][]string{{"4", "4"}, {"4", "4"}}, nil)
	for _, cfg := range []RewardConfig{
		{WLocal: -1, WGlobal: 1}, {WLocal: math.NaN()}, {Lambda: math.Inf(1)}, {WLocal: 1, GroupBy: "tasks"},
	} {
		if _, err := Rewards(ep, cfg); err == nil {
			t.Errorf("Rewards accepted %+v", cfg)
		}
	}
	bad := episodeOf("4", [][]string{{"4", "4"}, {"4", "4"}}, nil)
	bad.Rounds[1].Turns[0].Action = nil
	if _, err := Rewards(bad, DefaultRewardConfig()); err == nil {
		t.Error("Rewards accepted an invalid episode")
	}
}

func TestDecisions(t *testing.T) {
	ep := episodeOf("4", [][]string{{"3", "4", "5"}, {"4", "4", "5"}, {"4", "4", "4"}},
		[][]float64{{0.5, -1, 0.9}, {0.6, 0.7, 0.2}, {-1, -1, -1}})
	ep.Rounds[1].Turns[2].Action = ptr(metapolicy.Persist)
	ep.Rounds[2].Turns[2].Action = ptr(metapolicy.Concede)
	ep.Rounds[2].Turns[0].LogProb = ptr(-0.25)
	for _, by := range []GroupBy{"", GroupByTask, GroupByEpisode, GroupByTaskRound} {
		cfg := RewardConfig{WLocal: 1, WGlobal: 1, GroupBy: by}
		ds, err := Decisions(ep, cfg)
		if err != nil {
			t.Fatal(err)
		}
		rw, _ := Rewards(ep, cfg)
		if len(ds) != 6 {
			t.Fatalf("%d decisions, want 6 (3 agents × 2 rounds)", len(ds))
		}
		for k, d := range ds {
			round, agent := 1+k/3, k%3
			turn := ep.Rounds[round].Turns[agent]
			want := map[GroupBy]string{"": "task", GroupByTask: "task", GroupByEpisode: "ep",
				GroupByTaskRound: "task/round=" + string(rune('0'+round))}[by]
			if d.Group != want {
				t.Errorf("group by %q: decision %d group %q, want %q", by, k, d.Group, want)
			}
			if d.Action != *turn.Action || d.Reward != rw[round][agent] || d.Kind != KindDecision {
				t.Errorf("decision %d: action %v reward %v kind %q, want %v %v %q", k, d.Action, d.Reward, d.Kind,
					*turn.Action, rw[round][agent], KindDecision)
			}
			obs := ep.Observation(round, agent)
			f := make([]float64, metapolicy.FeatureWidth)
			if err := metapolicy.Featurize(f, &obs); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.Features, f) {
				t.Errorf("decision %d: features are not Featurize(Observation(%d, %d))", k, round, agent)
			}
			if (d.LogProb == nil) != (turn.LogProb == nil) || d.LogProb != nil && (*d.LogProb != *turn.LogProb || d.LogProb == turn.LogProb) {
				t.Errorf("decision %d: logprob %v, want a copy of %v", k, d.LogProb, turn.LogProb)
			}
			if err := d.Validate(metapolicy.FeatureWidth); err != nil {
				t.Errorf("decision %d: %v", k, err)
			}
		}
	}
}

// ValidateGiven refuses the all-zero weights Validate reads as defaults.
func TestRewardValidateGiven(t *testing.T) {
	if err := (RewardConfig{}).ValidateGiven(); !errors.Is(err, ErrConstantReward) {
		t.Errorf("all 0: %v, want ErrConstantReward", err)
	}
	if err := (RewardConfig{Lambda: 1}).ValidateGiven(); err != nil {
		t.Errorf("lambda 1: %v", err)
	}
	if err := (RewardConfig{WLocal: -1}).ValidateGiven(); err == nil {
		t.Error("w_local -1: no error")
	}
}

// ParseGroupBy reads the three group keys and refuses anything else.
func TestParseGroupBy(t *testing.T) {
	for _, g := range []GroupBy{GroupByTask, GroupByEpisode, GroupByTaskRound} {
		if got, err := ParseGroupBy(string(g)); got != g || err != nil {
			t.Errorf("ParseGroupBy(%q) = %q, %v", g, got, err)
		}
	}
	if _, err := ParseGroupBy("model"); err == nil {
		t.Error("ParseGroupBy(model): no error")
	}
}
