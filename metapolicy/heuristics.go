package metapolicy

import (
	"fmt"
	"strconv"
	"strings"
)

// Names of the heuristic baselines (NewHeuristic).
const (
	HeuristicMajority   = "majority"        // self-consistency: everyone persists, the round-0 majority
	HeuristicPersist    = "persist"         // the former name of majority, kept as an alias
	HeuristicRefine     = "refine"          // Self-Refine: refine every round, peers unseen
	HeuristicDebate     = "debate"          // LLM-Debate: refine every round, peers seen
	HeuristicGate       = "gate"            // debate only when round 0 disagrees (iMAD-style)
	HeuristicUntilAgree = "until-consensus" // refine until unanimous, then persist (DyLAN's early stop)
	HeuristicThreshold  = "threshold"       // persist / refine / concede by confidence
	HeuristicRandom     = "random"          // uniform over the three actions
)

// Default thresholds of the threshold heuristic.
const (
	DefaultHigh = 0.8
	DefaultLow  = 0.4
)

// HeuristicNames lists the heuristic baselines in the order tables show
// them. The alias persist is not listed: it is majority under its old name.
func HeuristicNames() []string {
	return []string{HeuristicMajority, HeuristicRefine, HeuristicDebate, HeuristicGate,
		HeuristicUntilAgree, HeuristicThreshold, HeuristicRandom}
}

// SelfRefiner is implemented by policies whose agents refine alone, without
// being shown the peers' answers (Self-Refine). Runners honour it by hiding
// the peers' turns from the environment when such an agent refines; what
// the policy observes is unchanged.
type SelfRefiner interface {
	SelfRefine() bool
}

// HeuristicOption configures NewHeuristic. Options validate their values.
type HeuristicOption func(*heuristic) error

// WithThresholds sets the threshold heuristic's cut-offs: persist when the
// agent's confidence is ≥ high, concede when it is < low, refine between.
// It needs 0 ≤ low ≤ high ≤ 1.
func WithThresholds(high, low float64) HeuristicOption {
	return func(h *heuristic) error {
		if !(low >= 0 && low <= high && high <= 1) {
			return fmt.Errorf("metapolicy: thresholds high %v, low %v: want 0 ≤ low ≤ high ≤ 1", high, low)
		}
		h.high, h.low = high, low
		return nil
	}
}

// heuristic is a fixed baseline policy. All but random put all their mass
// on one action. It holds no mutable state: safe for concurrent use.
type heuristic struct {
	kind      string
	high, low float64
}

// NewHeuristic returns the baseline policy called name (HeuristicNames):
//
//   - majority: always persist, so the final team answer is the round-0
//     majority (self-consistency over the team's independent answers).
//     "persist" is accepted as an alias; the policy keeps the name it was
//     asked by, so that old records and scripts still match.
//   - refine: always refine, without seeing the peers (Self-Refine; the
//     policy implements SelfRefiner).
//   - debate: always refine, seeing the peers (LLM-Debate).
//   - gate: decide once whether to debate at all (as iMAD does with a
//     classifier, here with the plainest signal): when every agent's
//     round-0 answer is the same readable answer, everyone persists to the
//     end; otherwise a full debate (everyone refines every round). It reads
//     round 0 from Observation.History (from Agents in round 1), so later
//     rounds need the History that runners fill.
//   - until-consensus: everyone refines each round until the team is
//     unanimous (every agent holds the same readable answer), then
//     persists (DyLAN's early stop on agreement). All agents see the same
//     states, so the whole team stops together; it needs no history.
//   - threshold: persist when the agent's introspective confidence is
//     ≥ high, concede when it is < low, refine in between or when the
//     confidence is missing (WithThresholds; defaults 0.8 and 0.4).
//   - random: each action with probability 1/3.
//
// Options other than WithThresholds on threshold are an error.
func NewHeuristic(name string, opts ...HeuristicOption) (Policy, error) {
	h := &heuristic{kind: name, high: DefaultHigh, low: DefaultLow}
	switch name {
	case HeuristicMajority, HeuristicPersist, HeuristicRefine, HeuristicDebate,
		HeuristicGate, HeuristicUntilAgree, HeuristicRandom:
		if len(opts) > 0 {
			return nil, fmt.Errorf("metapolicy: heuristic %q takes no options", name)
		}
	case HeuristicThreshold:
		for _, o := range opts {
			if err := o(h); err != nil {
				return nil, err
			}
		}
	default:
		return nil, fmt.Errorf("metapolicy: unknown heuristic %q (want one of %s, or persist for majority)",
			name, strings.Join(HeuristicNames(), ", "))
	}
	return h, nil
}

// ParseHeuristic parses a baseline written as its name, or for threshold
// optionally as "threshold:HIGH:LOW" (e.g. "threshold:0.9:0.3"). The
// result's Name is spec in that canonical form.
func ParseHeuristic(spec string) (Policy, error) {
	name, args, hasArgs := strings.Cut(spec, ":")
	if !hasArgs {
		return NewHeuristic(name)
	}
	if name != HeuristicThreshold {
		return nil, fmt.Errorf("metapolicy: heuristic %q: only threshold takes parameters", spec)
	}
	hs, ls, ok := strings.Cut(args, ":")
	if !ok {
		return nil, fmt.Errorf("metapolicy: heuristic %q: want threshold:HIGH:LOW", spec)
	}
	high, err := strconv.ParseFloat(hs, 64)
	if err != nil {
		return nil, fmt.Errorf("metapolicy: heuristic %q: high: %w", spec, err)
	}
	low, err := strconv.ParseFloat(ls, 64)
	if err != nil {
		return nil, fmt.Errorf("metapolicy: heuristic %q: low: %w", spec, err)
	}
	return NewHeuristic(name, WithThresholds(high, low))
}

// Name is the heuristic's name; threshold with non-default cut-offs is
// "threshold:HIGH:LOW", which ParseHeuristic reads back.
func (h *heuristic) Name() string {
	if h.kind == HeuristicThreshold && (h.high != DefaultHigh || h.low != DefaultLow) {
		return fmt.Sprintf("%s:%s:%s", h.kind,
			strconv.FormatFloat(h.high, 'g', -1, 64), strconv.FormatFloat(h.low, 'g', -1, 64))
	}
	return h.kind
}

// SelfRefine reports whether the agents refine without seeing their peers.
func (h *heuristic) SelfRefine() bool { return h.kind == HeuristicRefine }

// Probs implements Policy. It returns Check's error for a malformed
// observation, and for gate an error when a round after the first comes
// without History.
func (h *heuristic) Probs(p *[NumActions]float64, obs *Observation) error {
	if err := obs.Check(); err != nil {
		return err
	}
	*p = [NumActions]float64{}
	switch h.kind {
	case HeuristicMajority, HeuristicPersist:
		p[Persist] = 1
	case HeuristicRefine, HeuristicDebate:
		p[Refine] = 1
	case HeuristicGate:
		first := obs.Answers(0)
		if first == nil {
			return fmt.Errorf("metapolicy: gate: round %d observation without the answer history", obs.Round)
		}
		if Unanimous(first) {
			p[Persist] = 1
		} else {
			p[Refine] = 1
		}
	case HeuristicUntilAgree:
		if Unanimous(obs.Answers(obs.Round - 1)) {
			p[Persist] = 1
		} else {
			p[Refine] = 1
		}
	case HeuristicRandom:
		for i := range p {
			p[i] = 1.0 / NumActions
		}
	case HeuristicThreshold:
		switch c := obs.Agents[obs.Self].Confidence; {
		case !Known(c):
			p[Refine] = 1
		case c >= h.high:
			p[Persist] = 1
		case c < h.low:
			p[Concede] = 1
		default:
			p[Refine] = 1
		}
	}
	return nil
}
