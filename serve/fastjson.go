package serve

import (
	"strconv"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// fastDecode decodes the common shape of a decide request without
// encoding/json's reflection, which cost a third of a batched request. It
// handles plain requests only (exact lower-case keys, strings without
// escapes, numbers the fields' types accept) and reports false for
// anything else — unknown keys, escapes, nulls where encoding/json would
// ignore them, syntax or type errors — so that the caller decodes those with
// encoding/json, whose result and error messages are the reference.
// TestFastDecodeMatchesJSON and FuzzFastDecode hold the two to the same
// result whenever fastDecode accepts.
func fastDecode(b []byte, req *DecideRequest) bool {
	p := fastParser{Scanner: jsonscan.Scanner{B: b}}
	return p.request(req)
}

// request parses a whole decide request. It stops as soon as an array
// passes its protocol limit (MaxDeliberations, MaxAgents), recording the
// error in p.limit, so that a body of a million empty deliberations costs
// no more than the largest valid batch.
func (p *fastParser) request(req *DecideRequest) bool {
	if !p.object(func(key []byte, seen *uint32) bool { return p.requestMember(key, seen, req) }) {
		return false
	}
	return p.End()
}

// fastParser is the scanner shared with data's fast path, and the
// request's members.
type fastParser struct {
	jsonscan.Scanner
	limit *fieldError // an array past its limit, when that stopped the parse
}

// object parses {"key": value, ...}, calling member after each key with the
// parser at the value. member marks the keys it has seen in seen: a
// repeated key makes encoding/json merge the two values, which the fast
// path leaves to it.
func (p *fastParser) object(member func(key []byte, seen *uint32) bool) bool {
	if !p.Byte('{') {
		return false
	}
	if p.Byte('}') {
		return true
	}
	var seen uint32
	for {
		key, ok := p.RawString()
		if !ok || !p.Byte(':') || !member(key, &seen) {
			return false
		}
		if p.Byte(',') {
			continue
		}
		return p.Byte('}')
	}
}

// array parses [value, ...], calling elem with the parser at each value.
func (p *fastParser) array(elem func() bool) bool {
	if !p.Byte('[') {
		return false
	}
	if p.Byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if p.Byte(',') {
			continue
		}
		return p.Byte(']')
	}
}

func (p *fastParser) str() (string, bool) {
	s, ok := p.RawString()
	return string(s), ok
}

func (p *fastParser) int() (int, bool) {
	lit, ok := p.Number()
	if !ok {
		return 0, false
	}
	v, err := strconv.ParseInt(string(lit), 10, strconv.IntSize)
	return int(v), err == nil
}

// float parses a number into a fresh *float64, or null into nil.
func (p *fastParser) float() (*float64, bool) {
	if p.Null() {
		return nil, true
	}
	lit, ok := p.Number()
	if !ok {
		return nil, false
	}
	v, err := strconv.ParseFloat(string(lit), 64)
	if err != nil {
		return nil, false
	}
	return &v, true
}

func (p *fastParser) requestMember(key []byte, seen *uint32, r *DecideRequest) bool {
	var ok bool
	switch string(key) {
	case "deliberations":
		if !once(seen, 0) {
			return false
		}
		r.Deliberations = []Deliberation{}
		ok = p.array(func() bool {
			i := len(r.Deliberations)
			if i == MaxDeliberations {
				p.limit = tooMany("deliberations", MaxDeliberations)
				return false
			}
			r.Deliberations = append(r.Deliberations, Deliberation{})
			d := &r.Deliberations[i]
			return p.object(func(k []byte, seen *uint32) bool { return p.deliberationMember(k, seen, d, i) })
		})
	case "mode":
		if !once(seen, 1) {
			return false
		}
		r.Mode, ok = p.str()
	case "seed":
		if !once(seen, 2) {
			return false
		}
		var lit []byte
		if lit, ok = p.Number(); ok {
			var v uint64
			var err error
			v, err = strconv.ParseUint(string(lit), 10, 64)
			ok = err == nil
			r.Seed = &v
		}
	default:
		return p.deliberationMember(key, seen, &r.Deliberation, -1)
	}
	return ok
}

// deliberationMember parses a member of deliberation number di of the
// batch, or of the top-level one when di < 0.
func (p *fastParser) deliberationMember(key []byte, seen *uint32, d *Deliberation, di int) bool {
	var ok bool
	switch string(key) {
	case "id":
		if !once(seen, 8) {
			return false
		}
		d.ID, ok = p.str()
	case "kind":
		if !once(seen, 9) {
			return false
		}
		d.Kind, ok = p.str()
	case "round":
		if !once(seen, 10) {
			return false
		}
		d.Round, ok = p.int()
	case "rounds":
		if !once(seen, 11) {
			return false
		}
		d.Rounds, ok = p.int()
	case "agents":
		if !once(seen, 12) {
			return false
		}
		d.Agents = []Agent{}
		ok = p.array(func() bool {
			if len(d.Agents) == MaxAgents {
				p.limit = tooMany(agentsPath(di), MaxAgents)
				return false
			}
			d.Agents = append(d.Agents, Agent{})
			a := &d.Agents[len(d.Agents)-1]
			return p.object(func(k []byte, seen *uint32) bool { return p.agentMember(k, seen, a) })
		})
	case "history":
		if !once(seen, 13) {
			return false
		}
		d.History = [][]string{}
		ok = p.array(func() bool {
			row := []string{}
			ok := p.array(func() bool {
				s, ok := p.str()
				row = append(row, s)
				return ok
			})
			d.History = append(d.History, row)
			return ok
		})
	}
	return ok
}

func (p *fastParser) agentMember(key []byte, seen *uint32, a *Agent) bool {
	var ok bool
	switch string(key) {
	case "answer":
		if !once(seen, 0) {
			return false
		}
		var s string
		s, ok = p.str()
		a.Answer = &s
	case "text":
		if !once(seen, 1) {
			return false
		}
		var s string
		s, ok = p.str()
		a.Text = &s
	case "completion_tokens":
		if !once(seen, 2) {
			return false
		}
		var v int
		v, ok = p.int()
		a.CompletionTokens = &v
	case "confidence":
		if !once(seen, 3) {
			return false
		}
		a.Confidence, ok = p.float()
	case "profile":
		if !once(seen, 4) {
			return false
		}
		a.Profile = &Profile{}
		ok = p.object(func(k []byte, seen *uint32) bool { return p.profileMember(k, seen, a.Profile) })
	}
	return ok
}

func (p *fastParser) profileMember(key []byte, seen *uint32, pr *Profile) bool {
	var ok bool
	switch string(key) {
	case "steps":
		if !once(seen, 0) {
			return false
		}
		pr.Steps, ok = p.int()
	case "tokens":
		if !once(seen, 1) {
			return false
		}
		pr.Tokens, ok = p.int()
	case "hedges":
		if !once(seen, 2) {
			return false
		}
		pr.Hedges, ok = p.int()
	case "self_confidence":
		if !once(seen, 3) {
			return false
		}
		pr.SelfConfidence, ok = p.float()
	}
	return ok
}

// once marks bit k of seen and reports whether it was clear.
func once(seen *uint32, k uint) bool {
	if *seen&(1<<k) != 0 {
		return false
	}
	*seen |= 1 << k
	return true
}
