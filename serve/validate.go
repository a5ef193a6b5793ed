package serve

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mpdf/mpdf/metapolicy"
)

// Protocol limits, the same for every server (api/openapi.json states them
// as maxItems): they bound the work and memory of one request beyond what
// the body size limit does.
const (
	// MaxAgents is the largest team of one deliberation (a larger one gets
	// 400). Features cost O(agents²) per deliberation.
	MaxAgents = 64
	// MaxDeliberations is the largest batch (a larger one gets 400).
	MaxDeliberations = 4096
)

// fieldError is a request error that names the field at fault.
type fieldError struct {
	field string // JSON path: "deliberations[3].agents[2].confidence"; "" for the body
	msg   string
}

func (e *fieldError) Error() string {
	if e.field == "" {
		return e.msg
	}
	return e.field + ": " + e.msg
}

func ferr(field, format string, args ...any) *fieldError {
	return &fieldError{field: field, msg: fmt.Sprintf(format, args...)}
}

// join appends a field name to a JSON path; a name from the body is
// clipped.
func join(path, name string) string {
	name = clip(name)
	if path == "" {
		return name
	}
	return path + "." + name
}

func index(path string, i int) string { return path + "[" + strconv.Itoa(i) + "]" }

// delib is a validated deliberation: what the featurizer reads.
type delib struct {
	id     string
	round  int
	rounds int
	agents []metapolicy.AgentState
	// history is Observation.History: nil when the request gave none.
	history [][]string
}

// mode of a request.
const (
	modeGreedy = "greedy"
	modeSample = "sample"
)

// check validates req and turns it into deliberations. The first error met,
// in field order, is reported.
func (req *DecideRequest) check() ([]delib, *fieldError) {
	return req.checkIn(stopper{}, nil, false)
}

// errStopped is the error of checkIn and decide when their stopper says
// stop: not the request's fault, the handler answers it (Server.stopped).
var errStopped = &fieldError{msg: "stopped: past the request's deadline, or its client went away"}

// stopper says when a request's work is to stop: once its client has gone
// (ctx, the request's context, ends) or its deadline has passed. The zero
// stopper never stops. (Checking a deadline and ctx.Err, rather than a
// context.WithTimeout, spares the timer and context of every request.)
type stopper struct {
	ctx      context.Context
	deadline time.Time
}

// stopEvery is how many deliberations go between checks of a stopper:
// reading the clock for each was 3% of a batch.
const stopEvery = 8

func (s stopper) stop() bool {
	return s.ctx != nil && s.ctx.Err() != nil || !s.deadline.IsZero() && time.Now().After(s.deadline)
}

// checkIn is check with the deliberations in arena a (nil: allocated);
// critic fills the confidence of agents given as text without one with the
// critic's (DecideOptions.Critic).
// st is checked between deliberations (errStopped once it says stop):
// reading agents' texts is the costly part of a check.
func (req *DecideRequest) checkIn(st stopper, a *arena, critic bool) ([]delib, *fieldError) {
	switch req.Mode {
	case "", modeGreedy, modeSample:
	default:
		return nil, ferr("mode", "%s, want %q or %q", quote(req.Mode), modeGreedy, modeSample)
	}
	single := req.Deliberation
	if req.Deliberations == nil {
		d, err := single.checkIn("", a, critic)
		if err != nil {
			return nil, err
		}
		if a == nil {
			return []delib{d}, nil
		}
		a.checked = append(a.checked[:0], d)
		return a.checked, nil
	}
	switch {
	case single.Agents != nil:
		return nil, ferr("agents", "give agents (one deliberation) or deliberations (a batch), not both")
	case single.Round != 0 || single.Rounds != 0 || single.Kind != "" || single.ID != "":
		return nil, ferr("deliberations", "a batch takes id, kind, round and rounds in each deliberation, not at the top level")
	case len(req.Deliberations) == 0:
		return nil, ferr("deliberations", "empty batch")
	case len(req.Deliberations) > MaxDeliberations:
		return nil, ferr("deliberations", "%d deliberations, at most %d per request", len(req.Deliberations), MaxDeliberations)
	}
	var out []delib
	if a == nil {
		out = make([]delib, len(req.Deliberations))
	} else {
		out = append(a.checked[:0], make([]delib, len(req.Deliberations))...)
		a.checked = out
	}
	for i := range req.Deliberations {
		if i%stopEvery == 0 && st.stop() {
			return nil, errStopped
		}
		d, err := req.Deliberations[i].checkIn(index("deliberations", i), a, critic)
		if err != nil {
			return nil, err
		}
		out[i] = d
	}
	return out, nil
}

// check validates one deliberation; path is its JSON path ("" at the top).
func (d *Deliberation) check(path string) (delib, *fieldError) { return d.checkIn(path, nil, false) }

// checkIn is check with the agents' states in arena a (nil: allocated),
// critic as DecideRequest.checkIn's.
func (d *Deliberation) checkIn(path string, a *arena, critic bool) (delib, *fieldError) {
	out := delib{id: d.ID, round: d.Round, rounds: d.Rounds}
	switch n := len(d.Agents); {
	case d.Agents == nil:
		return out, ferr(join(path, "agents"), "required (or deliberations, for a batch)")
	case n < 2:
		return out, ferr(join(path, "agents"), "%d agent(s), want ≥ 2", n)
	case n > MaxAgents:
		return out, ferr(join(path, "agents"), "%d agents, at most %d", n, MaxAgents)
	}
	if d.Rounds < 1 {
		return out, ferr(join(path, "rounds"), "%d, want ≥ 1 (required)", d.Rounds)
	}
	if d.Round < 1 || d.Round > d.Rounds {
		return out, ferr(join(path, "round"), "%d outside [1, rounds=%d] (required)", d.Round, d.Rounds)
	}
	if a == nil {
		out.agents = make([]metapolicy.AgentState, len(d.Agents))
	} else {
		out.agents = a.states.take(len(d.Agents))
	}
	for i := range d.Agents {
		s, err := d.Agents[i].check(d.Kind, critic)
		if err != nil {
			// Paths are built only for the error: a batch has many agents.
			if err.field == "kind" {
				err.field = join(path, "kind")
			} else {
				err.field = join(index(join(path, "agents"), i), err.field)
			}
			return out, err
		}
		out.agents[i] = s
	}
	if d.History != nil {
		if err := d.checkHistory(join(path, "history"), out.agents); err != nil {
			return out, err
		}
		out.history = d.History
	}
	return out, nil
}

// checkHistory validates a deliberation's history (metapolicy.Observation.
// History): one row per round before Round, one answer per agent, the last
// row the agents' current answers.
func (d *Deliberation) checkHistory(path string, agents []metapolicy.AgentState) *fieldError {
	h := d.History
	if len(h) != d.Round {
		return ferr(path, "%d rounds, want round=%d (the answers of rounds 0 to round-1, round 0 first)", len(h), d.Round)
	}
	for r, row := range h {
		if len(row) != len(agents) {
			return ferr(index(path, r), "%d answers for %d agents", len(row), len(agents))
		}
	}
	last := index(path, len(h)-1)
	for i, a := range h[len(h)-1] {
		if a != agents[i].Answer {
			return ferr(index(last, i), "%s, but agents[%d]'s answer is %s (the last round holds the current answers)", quote(a), i, quote(agents[i].Answer))
		}
	}
	return nil
}

// check validates one agent of a deliberation of the given kind. With
// critic, an agent given as text without a confidence gets the critic's
// read from the text (missing where it checks nothing). Error fields are
// relative to the agent, except "kind", the deliberation's.
func (a *Agent) check(kind string, critic bool) (metapolicy.AgentState, *fieldError) {
	s := metapolicy.AgentState{Confidence: metapolicy.Missing, Profile: metapolicy.Profile{SelfConfidence: metapolicy.Missing}}
	if m := a.Model; m != nil {
		if len(*m) > MaxModelBytes {
			return s, ferr("model", "%d bytes, over the limit of %d", len(*m), MaxModelBytes)
		}
		s.Model = *m
	}
	if c := a.Confidence; c != nil {
		if !(*c >= 0 && *c <= 1) {
			return s, ferr("confidence", "%v outside [0,1]", *c)
		}
		s.Confidence = *c
	}
	if a.CompletionTokens != nil {
		switch {
		case a.Text == nil:
			return s, ferr("completion_tokens", "only with text")
		case *a.CompletionTokens < 0:
			return s, ferr("completion_tokens", "%d, want ≥ 0", *a.CompletionTokens)
		}
	}
	if a.Text != nil {
		if a.Profile != nil {
			return s, ferr("profile", "give profile or text, not both (the profile is read from the text)")
		}
		tokens := -1
		if a.CompletionTokens != nil {
			tokens = *a.CompletionTokens
		}
		fill := critic && a.Confidence == nil
		ans, p, conf, ok := readText(kind, *a.Text, tokens, fill)
		if !ok {
			return s, ferr("kind", "%s: reading an answer from text needs a kind: gsm8k (gsm), mmlu, arithmetic or math", kind)
		}
		s.Answer, s.Profile = ans, p
		if fill {
			s.Confidence = conf
		}
	}
	if a.Answer != nil {
		s.Answer = *a.Answer
	}
	if p := a.Profile; p != nil {
		const pp = "profile"
		switch {
		case p.Steps < 0:
			return s, ferr(join(pp, "steps"), "%d, want ≥ 0", p.Steps)
		case p.Tokens < 0:
			return s, ferr(join(pp, "tokens"), "%d, want ≥ 0", p.Tokens)
		case p.Hedges < 0:
			return s, ferr(join(pp, "hedges"), "%d, want ≥ 0", p.Hedges)
		}
		s.Profile = metapolicy.Profile{Steps: p.Steps, Tokens: p.Tokens, Hedges: p.Hedges, SelfConfidence: metapolicy.Missing}
		if c := p.SelfConfidence; c != nil {
			if !(*c >= 0 && *c <= 1) {
				return s, ferr(join(pp, "self_confidence"), "%v outside [0,1]", *c)
			}
			s.Profile.SelfConfidence = *c
		}
	}
	return s, nil
}
