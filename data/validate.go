package data

import (
	"fmt"
	"math"
	"strconv"
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
	case len(e.Rounds) == 0:
		return fieldErr("rounds", "empty, want round 0 at least")
	}
	for t := range e.Rounds {
		turns := e.Rounds[t].Turns
		if len(turns) != e.Agents {
			return fieldErr(roundPath(t)+".turns", "%d turns, want %d (agents)", len(turns), e.Agents)
		}
		for i := range turns {
			if err := validateTurn(&turns[i], t, turnPath(t, i)); err != nil {
				return err
			}
		}
	}
	return nil
}

func validateTurn(u *Turn, t int, path string) *RecordError {
	if t == 0 {
		if u.Action != nil {
			return fieldErr(path+".action", "present in round 0 (agents answer on their own there)")
		}
		if u.LogProb != nil {
			return fieldErr(path+".logprob", "present in round 0, which has no action")
		}
	} else {
		if u.Action == nil {
			return fieldErr(path+".action", "missing (every turn of round ≥ 1 has an action)")
		}
		if !u.Action.Valid() {
			return fieldErr(path+".action", "invalid action %d (want persist, refine or concede)", uint8(*u.Action))
		}
		if u.LogProb != nil {
			if err := checkLogProb(path+".logprob", *u.LogProb); err != nil {
				return err
			}
		}
	}
	if u.Confidence != nil {
		if err := checkUnit(path+".confidence", *u.Confidence); err != nil {
			return err
		}
	}
	p := &u.Profile
	switch {
	case p.Steps < 0:
		return fieldErr(path+".profile.steps", "%d, want ≥ 0", p.Steps)
	case p.Tokens < 0:
		return fieldErr(path+".profile.tokens", "%d, want ≥ 0", p.Tokens)
	case p.Hedges < 0:
		return fieldErr(path+".profile.hedges", "%d, want ≥ 0", p.Hedges)
	}
	if p.SelfConfidence != nil {
		if err := checkUnit(path+".profile.self_confidence", *p.SelfConfidence); err != nil {
			return err
		}
	}
	if u.Tokens < 0 {
		return fieldErr(path+".tokens", "%d, want ≥ 0", u.Tokens)
	}
	for k := range u.Exchanges {
		x := &u.Exchanges[k]
		xp := path + ".exchanges[" + strconv.Itoa(k) + "]"
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
		return fieldErr("action", "invalid action %d (want persist, refine or concede)", uint8(d.Action))
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
