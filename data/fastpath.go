package data

import (
	"strconv"

	"github.com/mpdf/mpdf/internal/jsonscan"
	"github.com/mpdf/mpdf/metapolicy"
)

// fastDecision parses the common shape of a decision record without
// reflection: one flat object whose keys are exactly the decision's field
// names, each once, strings without escapes, numbers in JSON syntax, and
// nothing else. It reports ok = false for anything else, and the caller
// takes the general path, which also writes every error message. When ok,
// the result is what the general path gives (FuzzReader checks it): the
// record and the same validation.
func fastDecision(line []byte, width int) (rec Record, err *RecordError, ok bool) {
	p := fastParser{jsonscan.Scanner{B: line}}
	if !p.Byte('{') {
		return Record{}, nil, false
	}
	var (
		seen               uint8
		kind, act          []byte
		group              string
		reward, lp         float64
		features           []float64
		hasLogProb, closed bool
	)
	const (
		sKind = 1 << iota
		sGroup
		sFeatures
		sAction
		sReward
		sLogProb
	)
	for !closed {
		key, ok := p.RawString()
		if !ok || !p.Byte(':') {
			return Record{}, nil, false
		}
		var bit uint8
		switch string(key) {
		case "kind":
			bit = sKind
			kind, ok = p.RawString()
		case "group":
			bit = sGroup
			var g []byte
			g, ok = p.RawString()
			ok = ok && len(g) <= MaxTextBytes // the general path rejects it
			group = string(g)
		case "action":
			bit = sAction
			act, ok = p.RawString()
		case "reward":
			bit = sReward
			reward, ok = p.number()
		case "logprob":
			bit, hasLogProb = sLogProb, true
			lp, ok = p.number()
		case "features":
			bit = sFeatures
			features, ok = p.numbers()
		}
		if !ok || bit == 0 || seen&bit != 0 {
			return Record{}, nil, false
		}
		seen |= bit
		switch {
		case p.Byte(','):
		case p.Byte('}'):
			closed = true
		default:
			return Record{}, nil, false
		}
	}
	if !p.End() || seen|sLogProb != sKind|sGroup|sFeatures|sAction|sReward|sLogProb || string(kind) != KindDecision {
		return Record{}, nil, false
	}
	a, ok := actionOf(act)
	if !ok {
		return Record{}, nil, false
	}
	d := Decision{Kind: KindDecision, Group: group, Features: features, Action: a, Reward: reward}
	if hasLogProb {
		d.LogProb = &lp
	}
	return Record{Decision: &d}, validateDecision(&d, width), true
}

// fastParser is the scanner shared with serve's fast path, and numbers.
type fastParser struct{ jsonscan.Scanner }

// actionOf parses an action name without allocating.
func actionOf(b []byte) (metapolicy.Action, bool) {
	for _, a := range metapolicy.Actions {
		if string(b) == a.String() {
			return a, true
		}
	}
	return 0, false
}

// number reads a JSON number that is finite as a float64.
func (p *fastParser) number() (float64, bool) {
	lit, ok := p.Number()
	if !ok {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(lit), 64)
	return x, err == nil
}

// numbers reads an array of numbers.
func (p *fastParser) numbers() ([]float64, bool) {
	if !p.Byte('[') {
		return nil, false
	}
	out := make([]float64, 0, 32)
	if p.Byte(']') {
		return out, true
	}
	for {
		x, ok := p.number()
		if !ok {
			return nil, false
		}
		out = append(out, x)
		switch {
		case p.Byte(','):
		case p.Byte(']'):
			return out, true
		default:
			return nil, false
		}
	}
}
