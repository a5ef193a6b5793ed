package transcript

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
)

// Answer is one agent's response in one round.
type Answer struct {
	Text    string       // the response as recorded
	Answer  string       // normalised answer; "" when unreadable
	Profile data.Profile // reasoning profile of Text (ProfileOf)
	// Critic is answer.Critic's confidence in Answer, read from Text; nil
	// when Text gives it nothing to check. Episodes carry it as the turn's
	// Confidence only when asked (EpisodeOptions.Critic, replay.WithCritic).
	Critic *float64
	// PromptTokens estimates the context the agent was sent for this
	// answer: every message of its chat before it (LLM-Debate sends the
	// whole chat each round; for LLM-Agora, the question and the agent's
	// own earlier answers). Profile.Tokens estimates the response.
	PromptTokens int
}

// Tokens is the estimated cost of the answer: prompt plus response.
func (a *Answer) Tokens() int { return a.PromptTokens + a.Profile.Tokens }

// Question is one debated question of a transcript file.
type Question struct {
	// ID names the question, not the file: the task and a hash of the text,
	// so that the same question debated in several files (other models,
	// other team sizes) has one ID and lands on one side of a split.
	ID    string
	File  string // base name of the source file
	Index int    // position in the file, from 0
	Task  answer.Kind
	Text  string // the question, as keyed in the file
	// GoldRaw is the gold answer as recorded (for GSM8K the reference
	// solution); Gold is it normalised, "" when unreadable.
	GoldRaw string
	Gold    string
	// Agents[k][t] is agent k's round-t answer; round 0 is the independent
	// answer. Every agent has at least one answer; agents may have recorded
	// different numbers of rounds.
	Agents [][]Answer
	// Models[k] is agent k's model when the file names one per agent (a
	// heterogeneous team, LLM-Agora); nil otherwise.
	Models []string
}

// AgentModels is every agent's backbone model, agent k's k-th: the one
// the file names for it (a mixed team, LLM-Agora), else the one the
// file's name names for the whole team (ParseName: "gsm_Qwen3-14B_persona_..."
// is Qwen3-14B's), else "" (Du et al.'s "gsm_3_2.json" names none).
func (q *Question) AgentModels() []string {
	out := make([]string, len(q.Agents))
	if q.Models != nil {
		copy(out, q.Models)
		return out
	}
	m := ParseName(q.File).Model
	for k := range out {
		out[k] = m
	}
	return out
}

// WithCritic returns q with every answer's Critic as Read fills it
// (answer.Critic of its text by q.Task's rules; nil where the critic
// checks nothing): for a question read with Options.SkipCritic whose
// critic is wanted after all. q is unchanged; its Agents are copied.
func (q *Question) WithCritic() Question {
	c := *q
	c.Agents = make([][]Answer, len(q.Agents))
	for k, as := range q.Agents {
		c.Agents[k] = make([]Answer, len(as))
		for t, a := range as {
			a.Critic = nil
			if v, ok := answer.Critic(q.Task, a.Text); ok {
				a.Critic = &v
			}
			c.Agents[k][t] = a
		}
	}
	return c
}

// Ragged reports whether some agent recorded fewer answers than another.
func (q *Question) Ragged() bool {
	for _, a := range q.Agents {
		if len(a) != len(q.Agents[0]) {
			return true
		}
	}
	return false
}

// QuestionID is the ID of a question text for a task: the task name, ":",
// and the first 12 hex digits of the text's SHA-256.
func QuestionID(task answer.Kind, text string) string {
	h := sha256.Sum256([]byte(text))
	return string(task) + ":" + hex.EncodeToString(h[:6])
}

// Rounds is the number of deliberation rounds recorded: the most answers
// any agent gave, less round 0.
func (q *Question) Rounds() int {
	n := 0
	for _, a := range q.Agents {
		n = max(n, len(a))
	}
	return n - 1
}

// At returns agent's answer of round t, or its last recorded one when it
// recorded fewer rounds.
func (q *Question) At(agent, t int) *Answer {
	as := q.Agents[agent]
	return &as[min(t, len(as)-1)]
}

// Answers writes into dst (grown as needed) every agent's normalised answer
// of round t, by At's rule, and returns it.
func (q *Question) Answers(dst []string, t int) []string {
	dst = dst[:0]
	for k := range q.Agents {
		dst = append(dst, q.At(k, t).Answer)
	}
	return dst
}
