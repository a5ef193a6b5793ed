package transcript

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
)

// DebatePolicy names the behaviour recorded in an LLM-Debate transcript:
// every agent refines in every round.
const DebatePolicy = "debate"

// EpisodeOptions control ToEpisode.
type EpisodeOptions struct {
	Text bool // keep the question and response texts in the episode
	// Critic sets each turn's Confidence to the critic's confidence read
	// from its text (Answer.Critic), where the critic has one; off, every
	// confidence is missing, as the transcripts state none.
	Critic bool
}

// ToEpisode turns a question into the episode the recorded debate was:
// round 0 is the recorded round 0, and each later round t the recorded
// round t with action refine for every agent. An agent that recorded fewer
// rounds than the others keeps its last answer in the rounds it missed,
// recorded as persist at no cost. The behaviour
// log-probability is left absent: the debate did not sample its actions
// from a policy, and design §4 then uses the learner's own log-probability
// (ratio 1) rather than claiming log 1 = 0, which would clip away every
// negative advantage. Tokens are Answer.Tokens (estimates); confidence is
// missing, as the transcripts have none, unless opts.Critic fills it with
// the critic's (Answer.Critic).
func ToEpisode(q *Question, opts EpisodeOptions) data.Episode {
	ep := data.Episode{
		Kind:   data.KindEpisode,
		ID:     fmt.Sprintf("%s#%d", strings.TrimSuffix(q.File, ".json"), q.Index),
		Task:   q.ID,
		Gold:   q.Gold,
		Source: source(q),
		Policy: DebatePolicy,
		Agents: len(q.Agents),
		Rounds: make([]data.Round, q.Rounds()+1),
	}
	if opts.Text {
		ep.Question = q.Text
	}
	models := q.AgentModels()
	for t := range ep.Rounds {
		turns := make([]data.Turn, len(q.Agents))
		for k := range turns {
			a := q.At(k, t)
			turns[k] = data.Turn{Answer: a.Answer, Profile: a.Profile, Tokens: a.Tokens(), Model: models[k]}
			if opts.Text {
				turns[k].Text = a.Text
			}
			if opts.Critic && a.Critic != nil {
				c := *a.Critic
				turns[k].Confidence = &c
			}
			if t > 0 {
				act := metapolicy.Refine
				if t >= len(q.Agents[k]) { // nothing recorded: the agent kept its answer
					act, turns[k].Tokens = metapolicy.Persist, 0
				}
				turns[k].Action = &act
			}
		}
		ep.Rounds[t].Turns = turns
	}
	return ep
}

// source is the episode's Source, its layout's scheme
// (data.TranscriptLayout.Source) and the file: "llm-debate:FILE", or for a
// heterogeneous team "llm-agora:FILE models=M0,M1,..." (agent k's model
// k-th). Each turn
// also records its agent's model (data.Turn.Model, from AgentModels); the
// models in the Source stay so that a reader of the episode line alone, or
// of files written before turns had the field, still sees the team.
func source(q *Question) string {
	if q.Models == nil {
		return sourceScheme(LayoutDebate) + ":" + q.File
	}
	return sourceScheme(LayoutAgora) + ":" + q.File + " models=" + strings.Join(q.Models, ",")
}
