package data

// Decisions made where design §1–§5 are silent (the rules of the
// formats that docs/rollouts.md states, and why):
//
//   - An answer is correct when it is not empty and equals the gold string;
//     answers are compared as written (normalise them when writing).
//   - Episodes without gold yield no reward and no decision: Rewards and
//     Decisions return an error wrapping ErrNoGold; DecisionStream, packs and
//     stats count them.
//   - The zero RewardConfig means the defaults (1, 1, 0): all-zero
//     coefficients would make every reward 0.
//   - id, task and group must not be empty; an episode has at least round 0;
//     a logprob is optional in rounds ≥ 1 and forbidden in round 0.
//   - Features must fit float32, the trainer's precision; packs store them
//     as float32 (unpacking returns them rounded to float32).
//   - Blank lines are not records and are not counted; a line over the
//     length limit is rejected even when it is only spaces.
//   - Episode ids should be unique within a data set. A repeated id is
//     accepted but counted (Counts.DuplicateIDs) and listed
//     (Reader.Duplicates): ids are kept as 64-bit hashes, some 40 bytes
//     per episode read.
//   - A JSON object with a key twice, or a string that is not valid UTF-8,
//     is rejected with the path of the key or string: encoding/json would
//     keep the last value or replace the bad bytes silently.
//   - The Writer and the Reader share one line limit
//     (DefaultMaxLineBytes, 64 MiB; SetMaxLineBytes and
//     ReaderOptions.MaxLineBytes): what one writes, the other reads.
//   - A file cut mid-record (a writer killed mid-write) ends in a rejected
//     record marked RecordError.Torn; the records before it are read.
//     Writer.Commit ends a gzip member or zstd frame, so a compressed file
//     is whole up to the last Commit.
//   - A file named twice (or matched by two patterns) is read once.

import (
	"fmt"
	"math"
	"strconv"

	"github.com/mpdf/mpdf/metapolicy"
)

// Validate reports the first value of e that breaks the rules of the
// episode kind (docs/rollouts.md), as a *RecordError without position:
//
//   - kind is "episode"; id and task are not empty;
//   - agents ≥ 2, at least round 0, and every round has exactly agents turns;
//   - round 0 turns carry no action and no logprob; later turns carry a valid
//     action, and a logprob, when present, is finite and ≤ 0;
//   - confidence and profile.self_confidence, when present, are in [0,1];
//   - token and profile counts are ≥ 0.
//
// An empty gold is valid: such an episode has no reward (ErrNoGold).
func (e *Episode) Validate() error { return asError(validateEpisode(e)) }

// Validate reports the first value of d that breaks the rules of the
// decision kind, as a *RecordError without position: kind is "decision",
// group is not empty, features has width values (any width ≥ 1 when width
// is 0), each finite and within float32 range (packed shards and the
// trainer hold features as float32), the action is valid, the reward is
// finite, and a logprob, when present, is finite and ≤ 0.
func (d *Decision) Validate(width int) error { return asError(validateDecision(d, width)) }

func validateEpisode(e *Episode) *RecordError {
	switch {
	case e.Kind != KindEpisode:
		return fieldErr("kind", "%q, want %q", e.Kind, KindEpisode)
	case e.ID == "":
		return fieldErr("id", "empty")
	case e.Task == "":
		return fieldErr("task", "empty (the task id is the default group key)")
	case e.Agents < 2:
		return fieldErr("agents", "%d, want at least 2", e.Agents)
	case e.Agents > metapolicy.MaxAgents:
		return fieldErr("agents", "%d, more than the %d a team may hold", e.Agents, metapolicy.MaxAgents)
	case len(e.Rounds) == 0:
		return fieldErr("rounds", "empty, want round 0 at least")
	}
	for t := range e.Rounds {
		turns := e.Rounds[t].Turns
		if len(turns) != e.Agents {
			return fieldErr(roundPath(t)+".turns", "%d turns, want %d (agents)", len(turns), e.Agents)
		}
		for i := range turns {
			if err := validateTurn(&turns[i], t, i); err != nil {
				return err
			}
		}
	}
	return nil
}

// validateTurn checks turn i of round t; its path (turnPath) is built
// only for an error: a valid episode's turns are checked by the million.
func validateTurn(u *Turn, t, i int) *RecordError {
	if t == 0 {
		if u.Action != nil {
			return fieldErr(turnPath(t, i)+".action", "present in round 0 (agents answer on their own there)")
		}
		if u.LogProb != nil {
			return fieldErr(turnPath(t, i)+".logprob", "present in round 0, which has no action")
		}
	} else {
		if u.Action == nil {
			return fieldErr(turnPath(t, i)+".action", "missing (every turn of round ≥ 1 has an action)")
		}
		if !u.Action.Valid() {
			return fieldErr(turnPath(t, i)+".action", "invalid action %d (want %s)", uint8(*u.Action), metapolicy.NamesList())
		}
		if v := u.LogProb; v != nil && !(*v <= 0 && !math.IsInf(*v, -1)) {
			return checkLogProb(turnPath(t, i)+".logprob", *v)
		}
	}
	if v := u.Confidence; v != nil && !(*v >= 0 && *v <= 1) {
		return checkUnit(turnPath(t, i)+".confidence", *v)
	}
	p := &u.Profile
	switch {
	case p.Steps < 0:
		return fieldErr(turnPath(t, i)+".profile.steps", "%d, want ≥ 0", p.Steps)
	case p.Tokens < 0:
		return fieldErr(turnPath(t, i)+".profile.tokens", "%d, want ≥ 0", p.Tokens)
	case p.Hedges < 0:
		return fieldErr(turnPath(t, i)+".profile.hedges", "%d, want ≥ 0", p.Hedges)
	}
	if v := p.SelfConfidence; v != nil && !(*v >= 0 && *v <= 1) {
		return checkUnit(turnPath(t, i)+".profile.self_confidence", *v)
	}
	if u.Tokens < 0 {
		return fieldErr(turnPath(t, i)+".tokens", "%d, want ≥ 0", u.Tokens)
	}
	for k := range u.Exchanges {
		x := &u.Exchanges[k]
		xp := turnPath(t, i) + ".exchanges[" + strconv.Itoa(k) + "]"
		if x.PromptTokens < 0 {
			return fieldErr(xp+".prompt_tokens", "%d, want ≥ 0", x.PromptTokens)
		}
		if x.CompletionTokens < 0 {
			return fieldErr(xp+".completion_tokens", "%d, want ≥ 0", x.CompletionTokens)
		}
	}
	return nil
}

func validateDecision(d *Decision, width int) *RecordError {
	switch {
	case d.Kind != KindDecision:
		return fieldErr("kind", "%q, want %q", d.Kind, KindDecision)
	case d.Group == "":
		return fieldErr("group", "empty")
	case len(d.Features) == 0:
		return fieldErr("features", "empty, want at least one value")
	case width > 0 && len(d.Features) != width:
		return fieldErr("features", "%d values, want %d (the feature width of this data set)", len(d.Features), width)
	}
	for k, v := range d.Features {
		if !(math.Abs(v) <= math.MaxFloat32) { // NaN, ±Inf or too large: build the path only then
			field := "features[" + strconv.Itoa(k) + "]"
			if err := checkFinite(field, v); err != nil {
				return err
			}
			return fieldErr(field, "%v overflows float32 (features are trained as float32)", v)
		}
	}
	if !d.Action.Valid() {
		return fieldErr("action", "invalid action %d (want %s)", uint8(d.Action), metapolicy.NamesList())
	}
	if err := checkFinite("reward", d.Reward); err != nil {
		return err
	}
	if d.LogProb != nil {
		return checkLogProb("logprob", *d.LogProb)
	}
	return nil
}

func checkFinite(field string, v float64) *RecordError {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fieldErr(field, "%v, want a finite number", v)
	}
	return nil
}

func checkUnit(field string, v float64) *RecordError {
	if err := checkFinite(field, v); err != nil {
		return err
	}
	if v < 0 || v > 1 {
		return fieldErr(field, "%v outside [0,1]", v)
	}
	return nil
}

func checkLogProb(field string, v float64) *RecordError {
	if err := checkFinite(field, v); err != nil {
		return err
	}
	if v > 0 {
		return fieldErr(field, "%v > 0: a log-probability is ≤ 0 (probability outside [0,1])", v)
	}
	return nil
}

func roundPath(t int) string { return fmt.Sprintf("rounds[%d]", t) }

func turnPath(t, i int) string { return fmt.Sprintf("rounds[%d].turns[%d]", t, i) }
