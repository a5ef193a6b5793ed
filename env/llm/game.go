package llm

// What each action does.
//
// Round 0: every agent gets the solve prompt, all agents at once. Round
// t ≥ 1 (Game.Step, callable for the agents of a round concurrently):
//
//   - persist: no call; the turn is the previous one carried over, 0 tokens.
//   - refine: one call whose conversation is the solve prompt, the agent's
//     own previous answer as the assistant message, and the refine prompt
//     showing the peers' previous answers in agent order (LLM-Debate keeps
//     every round's messages; this keeps only the latest answer so that
//     the context stays bounded and persist and concede leave no gaps).
//   - concede: the answer is metapolicy.ConcedeTarget's. By default no call
//     is made: the agent takes over the solution text, profile and
//     confidence of the peer holding that answer (highest confidence,
//     then lowest index) and the turn costs Options.ConcedeTokens (default
//     20, the simulator's figure for a short "I adopt agent k's answer"
//     message). With Options.ConcedeCall, the model is asked to restate
//     the adopted solution (the concede prompt) and the judge scores it;
//     the answer is the adopted one whatever the model writes. When no
//     peer has an answer, concede acts as persist.
//
// Options.Personas gives agents system messages (agent i gets
// Personas[i % len]); without them, agents differ only by their seeds.
//
// A failed solve, refine or concede call fails the Step (or Initial)
// with the task, round, agent and role in the error: an episode in which
// an action silently did nothing would teach the policy a wrong lesson.
// The collector decides whether to skip the episode or stop. A failed
// judge call only leaves the confidence missing, unless the context was
// cancelled.
//
// Answers, profile, confidence, tokens.
//
// Answers and profiles are read by the answer package (answer.Read with
// the task's question), the same rules that read imported transcripts, so
// a policy trained on transcripts sees the same features live; an
// Options.Extract overrides the answer alone. The profile (steps, hedges,
// a stated confidence, tokens) measures the whole text of the answer,
// thinking included, and its Tokens is answer.EstimateTokens of that text
// — an estimate even when the server counted, so that the feature means
// the same thing in every source. The turn's cost (Turn.Tokens) uses the
// server's counts.
//
// Confidence comes from a judge call, as in the paper (which calls it a
// critic; here "critic" is only answer.Critic's arithmetic check): after
// every generated answer the same model, in a fresh conversation, rates
// the solution 0–100 (ParseConfidence reads "Confidence: N", a bare
// number, or N%); the turn's confidence is N/100. A reply without a
// score, or a judge call that fails, leaves the confidence missing (nil)
// — never 0 — and says why in the judge exchange's Error.
// Options.NoJudge skips the call.
//
// Token counts are the server's usage (prompt + completion tokens) of
// every call a turn makes, the judge's included. When an answer carries no
// usage, the counts are estimated (EstimatePromptTokens: answer.EstimateTokens
// per message plus four; answer.EstimateTokens for the completion) rather
// than taken as zero, which would make calls look free to the reward's
// token cost; Client.Stats().MissingUsage counts how often that happened,
// so a run can report it.
//
// Every call is recorded in the turn's Exchanges: role ("solve",
// "refine", "concede", "judge"; builds before the rename wrote the
// judge's as "critic", which JudgeRole still reads), the prompt as the JSON array of the
// messages sent, the reply (a server's separate reasoning_content is kept
// in front of it as <think>…</think>), the token counts, and the error.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// Exchange roles (data.Exchange.Role).
const (
	RoleSolve   = "solve"
	RoleRefine  = "refine"
	RoleConcede = "concede"
	RoleJudge   = "judge" // the LLM grading an answer: the agent's confidence
)

// roleCritic is the judge's role as episodes written before the rename
// record it (files, not code, still hold it): it reads as the judge
// (JudgeRole, CanonicalRole), and the judge's call seeds derive from it
// (seedRole).
const roleCritic = "critic"

// JudgeRole reports whether an exchange's role is the judge's: RoleJudge,
// or "critic" as older builds wrote it.
func JudgeRole(role string) bool { return role == RoleJudge || role == roleCritic }

// CanonicalRole returns role under its current name: "critic" (older
// builds' judge) becomes RoleJudge; every other role is returned as is.
func CanonicalRole(role string) string {
	if JudgeRole(role) {
		return RoleJudge
	}
	return role
}

// game is one task in progress. It holds nothing that Step changes, so
// Steps for different agents may run at once.
type game struct {
	e    *Env
	t    Task
	seed uint64 // drawn from the episode's rng; call seeds derive from it
}

func (g *game) Task() (id, question, gold string) { return g.t.ID, g.t.Question, g.t.Gold }
func (g *game) Agents() int                       { return g.e.opts.Agents }

// Initial asks every agent the solve prompt, all at once (the Client's
// limit bounds the requests in flight). The first failure cancels the
// calls still pending and is returned.
func (g *game) Initial() ([]data.Turn, error) {
	n := g.Agents()
	ctx, cancel := context.WithCancel(g.e.opts.Context)
	defer cancel()
	turns := make([]data.Turn, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			msgs := append(g.system(i), Message{Role: "user", Content: SolvePrompt(g.t.Kind, g.t.Question)})
			turns[i], errs[i] = g.generate(ctx, 0, i, RoleSolve, msgs, "")
			if errs[i] != nil {
				cancel()
			}
		})
	}
	wg.Wait()
	// Report the failure that caused the others, not their cancellation.
	var first error
	for _, err := range errs {
		if err != nil && (first == nil || (errors.Is(first, context.Canceled) && !errors.Is(err, context.Canceled))) {
			first = err
		}
	}
	if first != nil {
		return nil, first
	}
	return turns, nil
}

// Step plays agent's action in round (≥ 1), given every agent's turn of
// the previous round:
//
//   - persist: the previous turn carried over, no call, 0 tokens;
//   - refine: the agent's previous answer and its peers' (LLM-Debate's
//     refine prompt), then the judge;
//   - concede: the answer metapolicy.ConcedeTarget picks. Without
//     Options.ConcedeCall, the agent takes over the solution text,
//     profile and confidence of the peer holding it (highest confidence,
//     then lowest index) at ConcedeTokens; with it, the model restates
//     that solution (the concede prompt) and the judge scores it. When no
//     peer has an answer, concede acts as persist.
func (g *game) Step(round, agent int, action metapolicy.Action, prev []data.Turn) (data.Turn, error) {
	if err := env.CheckStep(round, agent, g.Agents(), action, prev); err != nil {
		return data.Turn{}, fmt.Errorf("llm: Step: %w", err)
	}
	ctx := g.e.opts.Context
	var (
		turn data.Turn
		err  error
	)
	switch action {
	case metapolicy.Persist:
		turn = carry(prev[agent])
	case metapolicy.Refine:
		peers := make([]string, 0, len(prev)-1)
		for j := range prev {
			if j != agent {
				peers = append(peers, StripThinking(prev[j].Text))
			}
		}
		msgs := g.history(agent, prev[agent].Text, RefinePrompt(g.t.Kind, g.t.Question, peers))
		turn, err = g.generate(ctx, round, agent, RoleRefine, msgs, "")
	case metapolicy.Concede:
		target, src := data.ConcedeSource(prev, agent)
		switch {
		case target == "":
			turn = carry(prev[agent])
		case !g.e.opts.ConcedeCall:
			turn = carry(prev[src])
			turn.Answer = target
			turn.Tokens = g.e.opts.ConcedeTokens
		default:
			msgs := g.history(agent, prev[agent].Text, ConcedePrompt(g.t.Kind, StripThinking(prev[src].Text), target))
			turn, err = g.generate(ctx, round, agent, RoleConcede, msgs, target)
		}
	}
	if err != nil {
		return data.Turn{}, err
	}
	a := action
	turn.Action = &a
	return turn, nil
}

// carry copies a turn into the next round without a call: same answer,
// text, profile and confidence, no tokens, no exchanges.
func carry(t data.Turn) data.Turn {
	out := data.Turn{Answer: t.Answer, Text: t.Text, Profile: t.Profile}
	if t.Confidence != nil {
		c := *t.Confidence
		out.Confidence = &c
	}
	if t.Profile.SelfConfidence != nil {
		c := *t.Profile.SelfConfidence
		out.Profile.SelfConfidence = &c
	}
	return out
}

// system is agent's persona message, if any.
func (g *game) system(agent int) []Message {
	p := g.e.opts.Personas
	if len(p) == 0 || p[agent%len(p)] == "" {
		return nil
	}
	return []Message{{Role: "system", Content: p[agent%len(p)]}}
}

// history is the conversation of a deliberation call: the solve prompt,
// the agent's own previous answer, then the round's instruction. Only the
// latest answer is kept, not every round's, so that the context does not
// grow with the rounds (and persist and concede, which make no call,
// leave no gap in it).
func (g *game) history(agent int, own, instruction string) []Message {
	own = StripThinking(own)
	if own == "" {
		own = noAnswer
	}
	return append(g.system(agent),
		Message{Role: "user", Content: SolvePrompt(g.t.Kind, g.t.Question)},
		Message{Role: "assistant", Content: own},
		Message{Role: "user", Content: instruction})
}

// generate makes a call that writes an answer, reads the answer (or takes
// force, when not empty), measures the profile and calls the judge.
func (g *game) generate(ctx context.Context, round, agent int, role string, msgs []Message, force string) (data.Turn, error) {
	_, ex, err := g.call(ctx, round, agent, role, msgs)
	if err != nil {
		return data.Turn{}, fmt.Errorf("llm: task %s: round %d: agent %d: %s: %w", g.t.ID, round, agent, role, err)
	}
	text := ex.Response
	read := answer.Read(g.t.Kind, text, answer.Options{Question: g.t.Question})
	if g.e.opts.Extract != nil {
		read.Answer = g.e.opts.Extract(g.t.Kind, text)
	}
	turn := data.Turn{
		Answer:    read.Answer,
		Text:      text,
		Profile:   read.Profile,
		Tokens:    ex.PromptTokens + ex.CompletionTokens,
		Exchanges: []data.Exchange{ex},
	}
	if force != "" {
		turn.Answer = force
	}
	if g.e.opts.NoJudge {
		return turn, nil
	}
	jmsgs := []Message{{Role: "user", Content: JudgePrompt(g.t.Question, StripThinking(text))}}
	jresp, jex, err := g.call(ctx, round, agent, RoleJudge, jmsgs)
	if err != nil && ctx.Err() != nil {
		return data.Turn{}, fmt.Errorf("llm: task %s: round %d: agent %d: judge: %w", g.t.ID, round, agent, err)
	}
	if err == nil {
		if c, ok := ParseConfidence(jresp.Content); ok {
			turn.Confidence = &c
		} else {
			jex.Error = "judge: no confidence score in the reply"
		}
	}
	turn.Exchanges = append(turn.Exchanges, jex)
	turn.Tokens += jex.PromptTokens + jex.CompletionTokens
	return turn, nil
}

// call makes one request and records it. On error the exchange holds the
// error and zero tokens.
func (g *game) call(ctx context.Context, round, agent int, role string, msgs []Message) (Response, data.Exchange, error) {
	prompt, err := json.Marshal(msgs)
	if err != nil {
		return Response{}, data.Exchange{}, err
	}
	ex := data.Exchange{Role: role, Prompt: string(prompt)}
	req := Request{Messages: msgs}
	if !g.e.opts.NoSeed {
		s := callSeed(g.seed, round, agent, seedRole(role))
		req.Seed = &s
	}
	resp, err := g.e.c.Chat(ctx, req)
	if err != nil {
		ex.Error = err.Error()
		return resp, ex, err
	}
	ex.Response = resp.Content
	if resp.Reasoning != "" {
		// Keep the thinking in the record, where StripThinking finds it.
		ex.Response = "<think>" + resp.Reasoning + "</think>\n" + resp.Content
	}
	if resp.Usage.Known {
		ex.PromptTokens, ex.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
	} else {
		ex.PromptTokens = EstimatePromptTokens(msgs)
		ex.CompletionTokens = answer.EstimateTokens(ex.Response)
	}
	return resp, ex, nil
}

// EstimatePromptTokens guesses a prompt's token count: its messages'
// contents plus four tokens of chat template per message.
func EstimatePromptTokens(msgs []Message) int {
	n := 0
	for _, m := range msgs {
		n += answer.EstimateTokens(m.Content) + 4
	}
	return n
}

// seedRole is the role name a call's seed is derived from: the judge's
// seeds keep deriving from "critic", its name when seeds were first
// derived, so a collection rerun with the same seed sends the server the
// same seeds as before the rename.
func seedRole(role string) string {
	if role == RoleJudge {
		return roleCritic
	}
	return role
}

// callSeed derives a call's seed from the game's, the round, the agent and
// the role, so that it does not depend on the order in which concurrent
// calls happen. It stays within 31 bits, which every server accepts.
func callSeed(base uint64, round, agent int, role string) int64 {
	x := base ^ uint64(round)<<40 ^ uint64(agent)<<16
	for _, c := range []byte(role) {
		x = x*0x100000001b3 ^ uint64(c)
	}
	// splitmix64 finaliser
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	x ^= x >> 31
	return int64(x >> 33)
}
