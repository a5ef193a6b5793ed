package serve

import (
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/transcript"
)

// readText reads an agent's raw response the way the transcript importer
// does: the answer by the task's rules, the profile (steps, hedges, stated
// confidence, estimated tokens) from the whole text. tokens ≥ 0 replaces the
// estimate with the server's count. ok is false for a kind the reader does
// not know.
//
// This is the only place the serve package reads answer text, so that
// switching to another answer/profile reader is a change here alone.
func readText(kind, text string, tokens int) (answer string, p metapolicy.Profile, ok bool) {
	task, err := transcript.ParseTask(kind)
	if err != nil {
		return "", p, false
	}
	dp := transcript.ProfileOf(text)
	p = metapolicy.Profile{Steps: dp.Steps, Tokens: dp.Tokens, Hedges: dp.Hedges, SelfConfidence: metapolicy.Missing}
	if dp.SelfConfidence != nil {
		p.SelfConfidence = *dp.SelfConfidence
	}
	if tokens >= 0 {
		p.Tokens = tokens
	}
	return transcript.Extract(task, text), p, true
}
