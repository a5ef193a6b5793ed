package serve

// Agents given as text, and the critic.
//
// An agent given as raw text is read by the transcript importer's answer
// and profile reader (readText, the one place to change it). With
// Config.Critic (mpdf serve --critic; DecideOptions.Critic without HTTP),
// such an agent without a confidence gets the critic's read from the text
// (answer.Read's Critic), the value a replay with critic=on gives the same
// text: TestCriticServeMatchesReplay holds the served decisions to the
// policy's on the replay's states. PolicyInfo.ConfidenceSource says where
// the policy's training confidence came from (checkpoints.ConfidenceSource,
// or a safetensors file's mpdf.confidence_source); when it disagrees with
// Config.Critic the server still serves, logs a warning at load and reload,
// and lists it in PolicyInfo.Warnings (GET /v1/policy).

import (
	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/metapolicy"
)

// readText reads an agent's raw response with the answer package, the one
// reader of every path (importer, replay, live backend): the answer by the
// kind's rules, the profile (steps, hedges, stated confidence, estimated
// tokens) from the whole text, and the critic's confidence in the answer
// (answer.Critic, only withCritic; metapolicy.Missing where it checks
// nothing or without it: the value a
// replay or import with the critic gives the same text). tokens ≥ 0
// replaces the estimate with the server's count. ok is false for a kind
// the reader does not know.
//
// This is the only place the serve package reads answer text.
func readText(kind, text string, tokens int, withCritic bool) (ans string, p metapolicy.Profile, critic float64, ok bool) {
	k, err := answer.ParseKind(kind)
	if err != nil {
		return "", p, metapolicy.Missing, false
	}
	r := answer.Read(k, text, answer.Options{Critic: withCritic})
	dp := r.Profile
	p = metapolicy.Profile{Steps: dp.Steps, Tokens: dp.Tokens, Hedges: dp.Hedges, SelfConfidence: metapolicy.Missing}
	if dp.SelfConfidence != nil {
		p.SelfConfidence = *dp.SelfConfidence
	}
	if tokens >= 0 {
		p.Tokens = tokens
	}
	critic = metapolicy.Missing
	if r.Critic != nil {
		critic = *r.Critic
	}
	return r.Answer, p, critic, true
}
