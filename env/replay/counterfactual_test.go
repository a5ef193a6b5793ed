package replay

import (
	"math"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// Counterfactual credit (design §3): with every other agent's actions held
// as the episode has them, the reward data.CounterfactualRewards gives
// agent i's action a in round t is the reward the replay gives when the
// agent actually takes a there; the alternative of the action taken is the
// episode's own turn; and replaying the alternatives leaves the game as
// the episode played it.
func TestCounterfactualRewardsAreTheReplays(t *testing.T) {
	e := newTiny(t)
	uniform := fixed{"uniform", [3]float64{1.0 / 3, 1.0 / 3, 1.0 / 3}}
	opts := env.RunOptions{Tasks: []int{0, 1, 0, 1}, Episodes: 3, Rounds: 2, Seed: 5}
	eps, err := env.Collect(e, uniform, opts)
	if err != nil {
		t.Fatal(err)
	}
	cfg := data.RewardConfig{WLocal: 1, WGlobal: 1, Lambda: 0.5} // tokens matter too
	checked := 0
	for k := range eps {
		ep := &eps[k]
		task := opts.Tasks[k/opts.Episodes]
		alt, err := env.Alternatives(e, task, ep)
		if err != nil {
			t.Fatal(err)
		}
		cr, err := data.CounterfactualRewards(ep, alt, cfg)
		if err != nil {
			t.Fatal(err)
		}
		taken, err := data.Rewards(ep, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for r := 1; r < len(ep.Rounds); r++ {
			for i, turn := range ep.Rounds[r].Turns {
				a := *turn.Action
				if got := alt[r][i][a]; got.Answer != turn.Answer || got.Tokens != turn.Tokens {
					t.Errorf("%s round %d agent %d: the alternative of the action taken is %q/%d tokens, the episode's %q/%d", ep.ID, r, i, got.Answer, got.Tokens, turn.Answer, turn.Tokens)
				}
				if cr[r][i][a] != taken[r][i] {
					t.Errorf("%s round %d agent %d: counterfactual reward of the action taken %v, Rewards' %v", ep.ID, r, i, cr[r][i][a], taken[r][i])
				}
				for b := range metapolicy.NumActions {
					want := forcedReward(t, e, task, ep, r, i, metapolicy.Action(b), cfg)
					if math.Abs(cr[r][i][b]-want) > 1e-12 {
						t.Errorf("%s round %d agent %d action %v: counterfactual reward %v, the replay's when taken %v", ep.ID, r, i, metapolicy.Action(b), cr[r][i][b], want)
					}
					checked++
				}
			}
		}
	}
	if checked < 50 {
		t.Fatalf("only %d counterfactual rewards checked", checked)
	}
}

// forcedReward plays task of e as ep did up to round r, except that agent
// i takes action b in round r, and returns agent i's reward of round r.
func forcedReward(t *testing.T, e *Env, task int, ep *data.Episode, r, i int, b metapolicy.Action, cfg data.RewardConfig) float64 {
	t.Helper()
	g, err := e.Start(task, nil)
	if err != nil {
		t.Fatal(err)
	}
	hist := play(t, g, r, func(round, agent int, _ []data.Turn) metapolicy.Action {
		if round == r && agent == i {
			return b
		}
		return *ep.Rounds[round].Turns[agent].Action
	})
	forced := data.Episode{Kind: data.KindEpisode, ID: ep.ID, Task: ep.Task, Gold: ep.Gold, Agents: ep.Agents}
	for _, turns := range hist {
		forced.Rounds = append(forced.Rounds, data.Round{Turns: turns})
	}
	rw, err := data.Rewards(&forced, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return rw[r][i]
}

// Only an environment that replays its episodes exactly has alternatives.
func TestAlternativesNeedAReplay(t *testing.T) {
	e := newTiny(t)
	eps, err := env.Collect(e, fixed{"refine", [3]float64{0, 1, 0}}, env.RunOptions{Tasks: []int{0}, Episodes: 1, Rounds: 1, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := env.Alternatives(e, 1, &eps[0]); err == nil {
		t.Error("alternatives of an episode of task 0 from task 1: no error")
	}
}
