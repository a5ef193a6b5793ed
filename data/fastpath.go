package data

import (
	"strconv"
	"unicode/utf8"

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
	p := fastParser{b: line}
	if !p.byte('{') {
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
		key, ok := p.rawStr()
		if !ok || !p.byte(':') {
			return Record{}, nil, false
		}
		var bit uint8
		switch string(key) {
		case "kind":
			bit = sKind
			kind, ok = p.rawStr()
		case "group":
			bit = sGroup
			var g []byte
			g, ok = p.rawStr()
			group = string(g)
		case "action":
			bit = sAction
			act, ok = p.rawStr()
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
		case p.byte(','):
		case p.byte('}'):
			closed = true
		default:
			return Record{}, nil, false
		}
	}
	p.space()
	if p.i != len(p.b) || seen|sLogProb != sKind|sGroup|sFeatures|sAction|sReward|sLogProb || string(kind) != KindDecision {
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

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// byte consumes c after optional white space.
func (p *fastParser) byte(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// actionOf parses an action name without allocating.
func actionOf(b []byte) (metapolicy.Action, bool) {
	for _, a := range metapolicy.Actions {
		if string(b) == a.String() {
			return a, true
		}
	}
	return 0, false
}

// rawStr reads a string without escapes, control characters or invalid
// UTF-8, returning a view of its bytes.
func (p *fastParser) rawStr() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			return s, utf8.Valid(s)
		case c == '\\' || c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// number reads a JSON number that is finite as a float64.
func (p *fastParser) number() (float64, bool) {
	p.space()
	start := p.i
	if !p.scanNumber() {
		return 0, false
	}
	x, err := strconv.ParseFloat(string(p.b[start:p.i]), 64)
	return x, err == nil
}

// scanNumber advances over one number in JSON's grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (p *fastParser) scanNumber() bool {
	b, i := p.b, p.i
	digits := func() bool {
		s := i
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
		return i > s
	}
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(b) && b[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	p.i = i
	return true
}

// numbers reads an array of numbers.
func (p *fastParser) numbers() ([]float64, bool) {
	if !p.byte('[') {
		return nil, false
	}
	out := make([]float64, 0, 32)
	if p.byte(']') {
		return out, true
	}
	for {
		x, ok := p.number()
		if !ok {
			return nil, false
		}
		out = append(out, x)
		switch {
		case p.byte(','):
		case p.byte(']'):
			return out, true
		default:
			return nil, false
		}
	}
}
