package data

import (
	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/metapolicy"
)

// Record kinds of the rollout format (design §5), the value of "kind".
const (
	KindEpisode  = "episode"
	KindDecision = "decision"
)

// Episode is one whole deliberation of a team on a task.
//
// Rounds[0] holds every agent's independent answer (no action). Rounds[t],
// t ≥ 1, holds for each agent the meta-action it chose in deliberation round
// t, having seen the states of Rounds[t-1], and the state that resulted.
// Every round has exactly Agents turns.
type Episode struct {
	Kind     string  `json:"kind"`               // always "episode"
	ID       string  `json:"id"`                 // unique within a data set
	Task     string  `json:"task"`               // task id, the default group key
	Question string  `json:"question,omitempty"` // task text, when there is one
	Gold     string  `json:"gold,omitempty"`     // normalised correct answer; "" = unknown (no reward)
	Source   string  `json:"source,omitempty"`   // "simulator", "replay:FILE", "openai:MODEL", ...
	Policy   string  `json:"policy,omitempty"`   // name of the policy that chose the actions
	Agents   int     `json:"agents"`             // team size N ≥ 2
	Rounds   []Round `json:"rounds"`             // round 0 first
}

// Round is one round of an episode: a turn per agent, by agent index.
type Round struct {
	Turns []Turn `json:"turns"`
}

// Turn is one agent's part in one round.
type Turn struct {
	// Action and LogProb are absent in round 0. LogProb is the behaviour
	// log-probability log μ(action|state) of the policy that chose it.
	Action  *metapolicy.Action `json:"action,omitempty"`
	LogProb *float64           `json:"logprob,omitempty"`
	// Answer is the normalised answer after the turn; "" when none could be read.
	Answer string `json:"answer"`
	// Confidence is the introspective confidence in [0,1]; absent = missing.
	Confidence *float64 `json:"confidence,omitempty"`
	Profile    Profile  `json:"profile"`
	// Tokens spent by this turn (prompt + completion); 0 for persist.
	Tokens int `json:"tokens"`
	// Text is the raw answer text, when the source keeps it.
	Text string `json:"text,omitempty"`
	// Model is the agent's backbone model in a mixed team (LLM-Agora's
	// transcripts name one per agent); "" when unknown. A policy decoupled
	// by model (metapolicy.AgentModel) reads it through State.
	Model string `json:"model,omitempty"`
	// Exchanges are the LLM calls made by this turn, when recorded.
	Exchanges []Exchange `json:"exchanges,omitempty"`
}

// Profile is the reasoning profile of a turn's answer, as the rollout
// format records it: answer.Profile, which answer.ProfileOf measures (an
// alias, so the format's field and every caller keep this name). A policy
// reads it as metapolicy.Profile (Turn.State).
type Profile = answer.Profile

// Exchange is one recorded LLM call.
type Exchange struct {
	Role             string `json:"role"` // "solve", "refine", "concede", "judge" (older files: "critic", the same)
	Prompt           string `json:"prompt"`
	Response         string `json:"response"`
	PromptTokens     int    `json:"prompt_tokens"`
	CompletionTokens int    `json:"completion_tokens"`
	Error            string `json:"error,omitempty"`
}

// Decision is one ready-made training decision (the "decision" kind), for
// users with their own state encoding.
type Decision struct {
	Kind     string            `json:"kind"` // always "decision"
	Group    string            `json:"group"`
	Features []float64         `json:"features"`
	Action   metapolicy.Action `json:"action"`
	Reward   float64           `json:"reward"`
	LogProb  *float64          `json:"logprob,omitempty"`
}

// State converts a turn into the agent state a policy observes.
func (t *Turn) State() metapolicy.AgentState {
	s := metapolicy.AgentState{
		Answer:     t.Answer,
		Model:      t.Model,
		Confidence: metapolicy.Missing,
		Profile: metapolicy.Profile{
			Steps: t.Profile.Steps, Tokens: t.Profile.Tokens, Hedges: t.Profile.Hedges,
			SelfConfidence: metapolicy.Missing,
		},
	}
	if t.Confidence != nil {
		s.Confidence = *t.Confidence
	}
	if t.Profile.SelfConfidence != nil {
		s.Profile.SelfConfidence = *t.Profile.SelfConfidence
	}
	return s
}

// Observation is what agent self saw when it chose its action in round t ≥ 1:
// the states of round t−1 and the answers of rounds 0..t−1 (History), as
// env.Play showed them.
func (e *Episode) Observation(t, self int) metapolicy.Observation {
	prev := e.Rounds[t-1].Turns
	agents := make([]metapolicy.AgentState, len(prev))
	for i := range prev {
		agents[i] = prev[i].State()
	}
	history := make([][]string, t)
	for r := range history {
		turns := e.Rounds[r].Turns
		history[r] = make([]string, len(turns))
		for i := range turns {
			history[r][i] = turns[i].Answer
		}
	}
	return metapolicy.Observation{Self: self, Round: t, Rounds: len(e.Rounds) - 1, Agents: agents, History: history}
}
