package data

import (
	"fmt"

	"github.com/mpdf/mpdf/metapolicy"
)

// CounterfactualRewards scores the three actions of every decision of ep
// with the other agents held fixed (design §2, counterfactual credit):
// out[t][i][a] is the reward (Rewards' formula) agent i would have had in
// round t had it taken action a, its turn there being alt[t][i][a] (what
// env.Alternatives replays) and every other turn of rounds t−1 and t
// ep's. The entry of the action taken is Rewards' own. The round's own
// reward: cfg.Gamma does not apply (the others' later rounds are not
// replayed under the other action). An episode without gold returns an
// error wrapping ErrNoGold.
func CounterfactualRewards(ep *Episode, alt [][][metapolicy.NumActions]Turn, cfg RewardConfig) ([][][metapolicy.NumActions]float64, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := validateEpisode(ep); err != nil {
		return nil, fmt.Errorf("data: episode %q: %w", ep.ID, err)
	}
	if ep.Gold == "" {
		return nil, fmt.Errorf("data: episode %q: %w", ep.ID, ErrNoGold)
	}
	if len(alt) != len(ep.Rounds) {
		return nil, fmt.Errorf("data: episode %q: alternatives of %d rounds for %d", ep.ID, len(alt), len(ep.Rounds))
	}
	cfg = cfg.withDefaults()
	correct := func(a string) float64 {
		if a != "" && a == ep.Gold {
			return 1
		}
		return 0
	}
	out := make([][][metapolicy.NumActions]float64, len(ep.Rounds))
	for t := 1; t < len(ep.Rounds); t++ {
		prev, cur := ep.Rounds[t-1].Turns, ep.Rounds[t].Turns
		if len(alt[t]) != len(cur) {
			return nil, fmt.Errorf("data: episode %q: round %d: alternatives of %d agents for %d", ep.ID, t, len(alt[t]), len(cur))
		}
		out[t] = make([][metapolicy.NumActions]float64, len(cur))
		turns := make([]Turn, len(cur))
		for i := range cur {
			copy(turns, cur)
			for a := range metapolicy.NumActions {
				turns[i] = alt[t][i][a]
				answers, conf := Votes(turns)
				local := correct(turns[i].Answer) - correct(prev[i].Answer)
				global := correct(metapolicy.TeamAnswer(answers, conf, -1)) - correct(metapolicy.TeamAnswer(answers, conf, i))
				out[t][i][a] = cfg.WLocal*local + cfg.WGlobal*global - cfg.Lambda*float64(turns[i].Tokens)/1000
			}
		}
	}
	return out, nil
}
