package metapolicy

import (
	"fmt"
	"math"
)

// Profile is an agent's reasoning profile for its current answer: what the
// source tells about how the answer was produced. Zero counts mean unknown
// or none; the featurizer treats them alike.
type Profile struct {
	Steps  int `json:"steps,omitempty"`  // reasoning steps (lines, numbered steps)
	Tokens int `json:"tokens,omitempty"` // tokens spent on the answer
	Hedges int `json:"hedges,omitempty"` // hedging words ("maybe", "not sure")
	// SelfConfidence is the confidence the agent stated in its answer, in
	// [0,1]; NaN when it stated none.
	SelfConfidence float64 `json:"-"`
}

// AgentState is one agent's meta-cognitive state at the start of a round.
type AgentState struct {
	Answer  string // normalised answer; "" when none could be read
	Profile Profile
	// Confidence is the introspective confidence (an LLM judge's, the
	// text critic's or a self score) in [0,1]; NaN when missing. Missing is a flag, not a zero.
	Confidence float64
	// Model is the agent's backbone model (a mixed team's, as an LLM-Agora
	// transcript names it); "" when unknown. The featurizer does not read
	// it; a policy decoupled by model (AgentModel) picks its network by it.
	Model string
}

// Known reports whether a confidence value is present.
func Known(c float64) bool { return !math.IsNaN(c) }

// Missing is the value of an absent confidence.
var Missing = math.NaN()

// Observation is what agent Self sees when it picks its action in round
// Round (1-based deliberation round) of Rounds: every agent's state, its own
// included, indexed by agent, and the answers of every earlier round.
type Observation struct {
	Self   int
	Round  int
	Rounds int
	Agents []AgentState
	// History holds the answers of every round before Round: History[r][i]
	// is agent i's answer ("" when unreadable) in round r, 0 ≤ r < Round,
	// so History[Round-1] repeats Agents' answers. Runners (env.Play,
	// data.Episode.Observation) fill it; nil means the past is unknown, as
	// in a hand-made observation. Policies must not modify it: rows are
	// shared between the agents of a round. The featurizer does not read
	// it (FeatureVersion is unchanged); baselines such as gate do.
	History [][]string
}

// Answers returns every agent's answer in round r < Round: History[r], or
// Agents' answers for r = Round−1 when History is nil. It returns nil
// when the observation does not know round r.
func (o *Observation) Answers(r int) []string {
	switch {
	case r < 0 || r >= o.Round:
		return nil
	case o.History != nil:
		return o.History[r]
	case r == o.Round-1:
		out := make([]string, len(o.Agents))
		for i := range o.Agents {
			out[i] = o.Agents[i].Answer
		}
		return out
	}
	return nil
}

// Unanimous reports whether every agent holds the same readable answer.
func Unanimous(answers []string) bool {
	if len(answers) == 0 || answers[0] == "" {
		return false
	}
	for _, a := range answers[1:] {
		if a != answers[0] {
			return false
		}
	}
	return true
}

// MaxAgents is the largest team mpdf plays, reads or featurizes, as serve
// takes at most 64 agents a request. Every agent's features look at every
// peer and its leave-one-out tallies (O(n²) a round with tallies by hash):
// a round of n agents costs a few dozen bytes of input per agent, so the
// work per input byte grows with n, and a team of 2,000 or 100,000 agents
// in a small replay or rollout file, or simulate --agents 1e6, cost minutes
// and gigabytes (issue 34). At 64 a 1 MB input reads in well under a
// second; the papers' teams hold 3 to 7 agents.
const MaxAgents = 64

// Check reports an observation the featurizer cannot encode.
func (o *Observation) Check() error {
	switch {
	case len(o.Agents) < 2:
		return fmt.Errorf("metapolicy: observation has %d agents, want ≥ 2", len(o.Agents))
	case len(o.Agents) > MaxAgents:
		return fmt.Errorf("metapolicy: observation has %d agents, more than the %d a team may hold (MaxAgents)", len(o.Agents), MaxAgents)
	case o.Self < 0 || o.Self >= len(o.Agents):
		return fmt.Errorf("metapolicy: self index %d outside [0, %d)", o.Self, len(o.Agents))
	case o.Rounds < 1 || o.Round < 1 || o.Round > o.Rounds:
		return fmt.Errorf("metapolicy: round %d of %d, want 1 ≤ round ≤ rounds", o.Round, o.Rounds)
	}
	if o.History != nil {
		if len(o.History) != o.Round {
			return fmt.Errorf("metapolicy: history of %d rounds in round %d, want %d", len(o.History), o.Round, o.Round)
		}
		for r, row := range o.History {
			if len(row) != len(o.Agents) {
				return fmt.Errorf("metapolicy: history round %d has %d answers for %d agents", r, len(row), len(o.Agents))
			}
		}
		for i, a := range o.History[o.Round-1] {
			if a != o.Agents[i].Answer {
				return fmt.Errorf("metapolicy: history round %d: agent %d answer %q, state says %q", o.Round-1, i, a, o.Agents[i].Answer)
			}
		}
	}
	for i, a := range o.Agents {
		if c := a.Confidence; Known(c) && !(c >= 0 && c <= 1) {
			return fmt.Errorf("metapolicy: agent %d: confidence %v outside [0,1]", i, c)
		}
		if c := a.Profile.SelfConfidence; Known(c) && !(c >= 0 && c <= 1) {
			return fmt.Errorf("metapolicy: agent %d: self-confidence %v outside [0,1]", i, c)
		}
		if a.Profile.Steps < 0 || a.Profile.Tokens < 0 || a.Profile.Hedges < 0 {
			return fmt.Errorf("metapolicy: agent %d: negative profile count", i)
		}
	}
	return nil
}
