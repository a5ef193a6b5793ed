package data

import (
	"errors"
	"fmt"
	"math"
	"strconv"

	"github.com/mpdf/mpdf/metapolicy"
)

// GroupBy names the group key that training decisions made from episodes
// carry: SoftRankPO ranks the rewards within a group (design §3).
type GroupBy string

const (
	// GroupByTask groups all decisions about one task, across episodes
	// and rounds: the design §3 default. Key: the task id.
	GroupByTask GroupBy = "task"
	// GroupByEpisode groups the decisions of one episode. Key: the id.
	GroupByEpisode GroupBy = "episode"
	// GroupByTaskRound groups the decisions about one task in one round.
	// Key: TASK/round=T.
	GroupByTaskRound GroupBy = "task+round"
)

// ParseGroupBy reads a group key: task, episode or task+round.
func ParseGroupBy(s string) (GroupBy, error) {
	switch g := GroupBy(s); g {
	case GroupByTask, GroupByEpisode, GroupByTaskRound:
		return g, nil
	}
	return "", fmt.Errorf("group key %q: want task, episode or task+round", s)
}

// RewardConfig holds the coefficients of the differential consensus
// reward (design §2) and the group key of the decisions made from episodes.
//
// The zero value means DefaultRewardConfig: a reward with every
// coefficient zero would be constant, so "all zero" is read as "defaults".
// To switch one term off, set its weight to 0 and keep another non-zero.
type RewardConfig struct {
	WLocal  float64 `json:"w_local"`
	WGlobal float64 `json:"w_global"`
	Lambda  float64 `json:"lambda"`             // token cost per 1000 tokens
	GroupBy GroupBy `json:"group_by,omitempty"` // "" means GroupByTask
	// Gamma is the discount of the return-to-go that decisions made from
	// episodes carry instead of their round's reward (Returns); 0, the
	// default, is the round's own reward. Omitted from JSON when 0, so
	// configs and pack manifests written before it read and write alike.
	Gamma float64 `json:"gamma,omitempty"`
}

// DefaultRewardConfig returns w_local = w_global = 1, λ = 0, grouped by task.
func DefaultRewardConfig() RewardConfig {
	return RewardConfig{WLocal: 1, WGlobal: 1, Lambda: 0, GroupBy: GroupByTask}
}

// withDefaults resolves the zero value and the empty GroupBy.
func (c RewardConfig) withDefaults() RewardConfig {
	if c.WLocal == 0 && c.WGlobal == 0 && c.Lambda == 0 {
		c.WLocal, c.WGlobal = 1, 1
	}
	if c.GroupBy == "" {
		c.GroupBy = GroupByTask
	}
	return c
}

// Validate reports a coefficient that is negative or not finite, or an
// unknown GroupBy.
func (c RewardConfig) Validate() error {
	return c.validate()
}

// ErrConstantReward is ValidateGiven's error for weights all 0.
var ErrConstantReward = errors.New("data: reward: w_local, w_global and lambda are all 0: the reward would be constant")

// ValidateGiven is Validate for a config given in full (a command's flags,
// a training config): all weights 0 reads as "the defaults" elsewhere in
// this package, but given, it is a constant reward that nothing can learn
// from (ErrConstantReward).
func (c RewardConfig) ValidateGiven() error {
	if c.WLocal == 0 && c.WGlobal == 0 && c.Lambda == 0 {
		return ErrConstantReward
	}
	return c.validate()
}

func (c RewardConfig) validate() error {
	for _, v := range []struct {
		name string
		x    float64
	}{{"w_local", c.WLocal}, {"w_global", c.WGlobal}, {"lambda", c.Lambda}} {
		if !(v.x >= 0) || math.IsInf(v.x, 0) {
			return fmt.Errorf("data: reward: %s %v, want a finite value ≥ 0", v.name, v.x)
		}
	}
	if !(c.Gamma >= 0 && c.Gamma <= 1) {
		return fmt.Errorf("data: reward: gamma %v, want a value in [0, 1]", c.Gamma)
	}
	switch c.GroupBy {
	case "", GroupByTask, GroupByEpisode, GroupByTaskRound:
		return nil
	}
	return fmt.Errorf("data: reward: group_by %q, want %q, %q or %q", c.GroupBy, GroupByTask, GroupByEpisode, GroupByTaskRound)
}

// Rewards returns the differential consensus reward of every decision of
// ep (design §2): rewards[t][i] is agent i's reward for its action in round
// t ≥ 1, and rewards[0] is nil (round 0 has no action).
//
//	local_i  = 1[answer_i after t correct] − 1[answer_i before t correct]
//	global_i = 1[team after t correct] − 1[team after t without agent i correct]
//	reward_i = w_local·local_i + w_global·global_i − λ·tokens_i/1000
//
// An answer is correct when it is not empty and equals ep.Gold (answers
// are normalised by whoever wrote the episode). The team answers come from
// metapolicy.TeamAnswer over round t's answers and confidences (missing
// confidence counts 0); tokens_i is the Tokens of agent i's turn in round t.
// An episode without gold returns an error wrapping ErrNoGold.
func Rewards(ep *Episode, cfg RewardConfig) ([][]float64, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := validateEpisode(ep); err != nil {
		return nil, fmt.Errorf("data: episode %q: %w", ep.ID, err)
	}
	return rewards(ep, cfg.withDefaults())
}

// rewards computes Rewards for a valid episode and a resolved config.
func rewards(ep *Episode, cfg RewardConfig) ([][]float64, error) {
	if ep.Gold == "" {
		return nil, fmt.Errorf("data: episode %q: %w", ep.ID, ErrNoGold)
	}
	correct := func(a string) float64 {
		if a != "" && a == ep.Gold {
			return 1
		}
		return 0
	}
	n := ep.Agents
	out := make([][]float64, len(ep.Rounds))
	for t := 1; t < len(ep.Rounds); t++ {
		prev, cur := ep.Rounds[t-1].Turns, ep.Rounds[t].Turns
		answers, conf := Votes(cur)
		team := correct(metapolicy.TeamAnswer(answers, conf, -1))
		row := make([]float64, n)
		for i := range cur {
			local := correct(cur[i].Answer) - correct(prev[i].Answer)
			global := team - correct(metapolicy.TeamAnswer(answers, conf, i))
			row[i] = cfg.WLocal*local + cfg.WGlobal*global - cfg.Lambda*float64(cur[i].Tokens)/1000
		}
		out[t] = row
	}
	return out, nil
}

// GroupKey is the group of agent decisions made in round t of ep under
// the given key (see GroupBy).
func GroupKey(ep *Episode, t int, by GroupBy) string {
	switch by {
	case GroupByEpisode:
		return ep.ID
	case GroupByTaskRound:
		return ep.Task + "/round=" + strconv.Itoa(t)
	}
	return ep.Task
}

// Decisions turns ep into its training decisions, one per agent per round
// t ≥ 1, in round then agent order: the features of what the agent saw
// (metapolicy.Featurize of ep.Observation(t, i), width
// metapolicy.FeatureWidth), the action it took, its reward (Rewards; with
// cfg.Gamma > 0 its discounted return-to-go, Returns), its behaviour
// log-probability when recorded, and the group key of cfg. An episode
// without gold returns an error wrapping ErrNoGold.
func Decisions(ep *Episode, cfg RewardConfig) ([]Decision, error) {
	return DecisionsAs(ep, cfg, metapolicy.Featurizers()[0])
}

// DecisionsAs is Decisions with the features of layout fz (RoundFeatures):
// a run over another layout featurizes each round once, not once per
// layout.
func DecisionsAs(ep *Episode, cfg RewardConfig, fz metapolicy.Featurizer) ([]Decision, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := validateEpisode(ep); err != nil {
		return nil, fmt.Errorf("data: episode %q: %w", ep.ID, err)
	}
	cfg = cfg.withDefaults()
	r, err := rewards(ep, cfg)
	if err != nil {
		return nil, err
	}
	Returns(r, cfg.Gamma)
	out := make([]Decision, 0, (len(ep.Rounds)-1)*ep.Agents)
	for t := 1; t < len(ep.Rounds); t++ {
		group := GroupKey(ep, t, cfg.GroupBy)
		rows, bad, err := RoundFeatures(ep, t, fz)
		if err != nil {
			return nil, fmt.Errorf("data: episode %q: %s: %w", ep.ID, turnPath(t, bad), err)
		}
		for i := range ep.Rounds[t].Turns {
			turn := &ep.Rounds[t].Turns[i]
			d := Decision{Kind: KindDecision, Group: group, Features: rows[i], Action: *turn.Action, Reward: r[t][i]}
			if turn.LogProb != nil {
				lp := *turn.LogProb
				d.LogProb = &lp
			}
			out = append(out, d)
		}
	}
	return out, nil
}

// Set reads a group key (ParseGroupBy): GroupBy is a flag value.
func (g *GroupBy) Set(s string) (err error) {
	*g, err = ParseGroupBy(s)
	return err
}

// String is the key as Set reads it.
func (g *GroupBy) String() string { return string(*g) }

// Type names what a group key is, for a flag's help.
func (g *GroupBy) Type() string { return "key" }

// RoundFeatures returns the feature rows of every agent of round t ≥ 1 of ep
// under fz: row i is, bit for bit, fz.Featurize of ep.Observation(t, i).
// The observation is built once and, when fz has a Team form, the whole team
// is featurized at once. On error it names the first agent that fails.
func RoundFeatures(ep *Episode, t int, fz metapolicy.Featurizer) (rows [][]float64, agent int, err error) {
	obs := ep.Observation(t, 0)
	n := len(ep.Rounds[t].Turns)
	flat := make([]float64, n*fz.Width)
	rows = make([][]float64, n)
	for i := range rows {
		rows[i] = flat[i*fz.Width : (i+1)*fz.Width : (i+1)*fz.Width]
	}
	if fz.Team != nil && n == len(obs.Agents) {
		if _, err := fz.Team(flat, make([]string, n), &obs); err == nil {
			return rows, 0, nil
		} // else agent by agent, which names the one that fails
	}
	clear(flat)
	for i := range n {
		obs.Self = i
		if err := fz.Featurize(rows[i], &obs); err != nil {
			return nil, i, err
		}
	}
	return rows, 0, nil
}
