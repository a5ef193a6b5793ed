package serve

// Cost of a request.
//
// A request body is decoded by a hand-written parser for the plain shape
// clients send (history included), and by encoding/json for anything else
// (escapes, nulls, odd numbers, unknown keys), whose answers and error
// messages are the reference: TestDecodePathsAgree and FuzzDecodePaths hold
// the two paths to the same decisions or the same error on valid, broken
// and random bodies. The handler decodes, validates and decides in a pooled
// arena (its strings are substrings of one copy of the body) and writes the
// response by hand, so that a single greedy deliberation of 3 agents
// allocates 4 times (the body's copy and one per agent in
// metapolicy.Greedy) besides what net/http allocates;
// TestHandlerAllocations holds it there. Policy.Decide, whose
// response the caller keeps, allocates its own.

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
	p := fastParser{Scanner: jsonscan.Scanner{B: b}, a: new(arena)}
	return p.request(req)
}

// request parses a whole decide request. It stops as soon as an array
// passes its protocol limit (MaxDeliberations, MaxAgents), recording the
// error in p.limit, so that a body of a million empty deliberations costs
// no more than the largest valid batch.
func (p *fastParser) request(req *DecideRequest) bool {
	if !p.object(func(key []byte) bool { return p.requestMember(key, req) }) {
		return false
	}
	return p.End()
}

// fastParser is the scanner shared with data's fast path, and the
// request's members.
type fastParser struct {
	jsonscan.Scanner
	limit *fieldError // an array past its limit, when that stopped the parse
	// The body's measure as jsonscan.Check takes it (every value; the
	// bytes of agents' texts), for the memory budget.
	values, textBytes int
	a                 *arena // where the values and arrays go
	src               string // the body as a string, once a string was read
	// seen[depth] marks the keys met in the object being parsed at each
	// depth: a repeated key makes encoding/json merge the two values, which
	// the fast path leaves to it.
	seen  [maxDepth]uint32
	depth int
}

// maxDepth is the deepest object of a request: request, deliberation,
// agent, profile.
const maxDepth = 4

// object parses {"key": value, ...}, calling member after each key with the
// parser at the value. member calls once for each key it knows.
func (p *fastParser) object(member func(key []byte) bool) bool {
	if p.depth == maxDepth || !p.Byte('{') {
		return false
	}
	p.values++
	if p.Byte('}') {
		return true
	}
	p.depth++
	defer func() { p.depth-- }()
	p.seen[p.depth-1] = 0
	for {
		key, ok := p.RawString()
		if !ok || !p.Byte(':') || !member(key) {
			return false
		}
		if p.Byte(',') {
			continue
		}
		return p.Byte('}')
	}
}

// once marks key number k of the object being parsed and reports whether
// it was not met before.
func (p *fastParser) once(k uint) bool {
	seen := &p.seen[p.depth-1]
	if *seen&(1<<k) != 0 {
		return false
	}
	*seen |= 1 << k
	return true
}

// array parses [value, ...], calling elem with the parser at each value.
func (p *fastParser) array(elem func() bool) bool {
	if !p.Byte('[') {
		return false
	}
	p.values++
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

// str reads a string as a substring of the body, copied once into a
// string on the first call: a request's strings cost one allocation.
func (p *fastParser) str() (string, bool) {
	raw, ok := p.RawString()
	if !ok {
		return "", false
	}
	p.values++
	if p.src == "" {
		p.src = string(p.B)
	}
	end := p.I - 1 // the closing quote
	return p.src[end-len(raw) : end], true
}

func (p *fastParser) int() (int, bool) {
	lit, ok := p.Number()
	if !ok {
		return 0, false
	}
	p.values++
	v, err := strconv.ParseInt(string(lit), 10, strconv.IntSize)
	return int(v), err == nil
}

// float parses a number into a *float64 of the arena, or null into nil.
func (p *fastParser) float() (*float64, bool) {
	p.values++
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
	return p.a.floats.one(v), true
}

func (p *fastParser) requestMember(key []byte, r *DecideRequest) bool {
	var ok bool
	switch string(key) {
	case "deliberations":
		if !p.once(0) {
			return false
		}
		// The batch's array is the arena's own: one per request.
		ds := p.a.delibs[:0]
		ok = p.array(func() bool {
			i := len(ds)
			if i == MaxDeliberations {
				p.limit = tooMany("deliberations", MaxDeliberations)
				return false
			}
			ds = append(ds, Deliberation{})
			d := &ds[i]
			return p.object(func(k []byte) bool { return p.deliberationMember(k, d, i) })
		})
		p.a.delibs = ds
		r.Deliberations = ds
		if ds == nil {
			r.Deliberations = []Deliberation{}
		}
	case "mode":
		if !p.once(1) {
			return false
		}
		r.Mode, ok = p.str()
	case "seed":
		if !p.once(2) {
			return false
		}
		var lit []byte
		if lit, ok = p.Number(); ok {
			p.values++
			v, err := strconv.ParseUint(string(lit), 10, 64)
			ok = err == nil
			r.Seed = &v
		}
	default:
		return p.deliberationMember(key, &r.Deliberation, -1)
	}
	return ok
}

// deliberationMember parses a member of deliberation number di of the
// batch, or of the top-level one when di < 0.
func (p *fastParser) deliberationMember(key []byte, d *Deliberation, di int) bool {
	var ok bool
	switch string(key) {
	case "id":
		if !p.once(8) {
			return false
		}
		d.ID, ok = p.str()
	case "kind":
		if !p.once(9) {
			return false
		}
		d.Kind, ok = p.str()
	case "round":
		if !p.once(10) {
			return false
		}
		d.Round, ok = p.int()
	case "rounds":
		if !p.once(11) {
			return false
		}
		d.Rounds, ok = p.int()
	case "agents":
		if !p.once(12) {
			return false
		}
		tmp := p.a.agentTmp[:0]
		ok = p.array(func() bool {
			if len(tmp) == MaxAgents {
				p.limit = tooMany(agentsPath(di), MaxAgents)
				return false
			}
			tmp = append(tmp, Agent{})
			a := &tmp[len(tmp)-1]
			return p.object(func(k []byte) bool { return p.agentMember(k, a) })
		})
		p.a.agentTmp = tmp
		d.Agents = p.a.agents.copyOf(tmp)
	case "history":
		if !p.once(13) {
			return false
		}
		rows := p.a.rowTmp[:0]
		ok = p.array(func() bool {
			cells := p.a.cellTmp[:0]
			ok := p.array(func() bool {
				s, ok := p.str()
				cells = append(cells, s)
				return ok
			})
			p.a.cellTmp = cells
			rows = append(rows, p.a.strs.copyOf(cells))
			return ok
		})
		p.a.rowTmp = rows
		d.History = p.a.rows.copyOf(rows)
	}
	return ok
}

func (p *fastParser) agentMember(key []byte, a *Agent) bool {
	var ok bool
	switch string(key) {
	case "answer":
		if !p.once(0) {
			return false
		}
		var s string
		s, ok = p.str()
		a.Answer = p.a.strs.one(s)
	case "text":
		if !p.once(1) {
			return false
		}
		var s string
		s, ok = p.str()
		a.Text = p.a.strs.one(s)
		p.textBytes += len(s)
	case "completion_tokens":
		if !p.once(2) {
			return false
		}
		var v int
		v, ok = p.int()
		a.CompletionTokens = p.a.ints.one(v)
	case "confidence":
		if !p.once(3) {
			return false
		}
		a.Confidence, ok = p.float()
	case "profile":
		if !p.once(4) {
			return false
		}
		pr := p.a.profiles.one(Profile{})
		a.Profile = pr
		ok = p.object(func(k []byte) bool { return p.profileMember(k, pr) })
	case "model":
		if !p.once(5) {
			return false
		}
		var s string
		s, ok = p.str()
		a.Model = p.a.strs.one(s)
	}
	return ok
}

func (p *fastParser) profileMember(key []byte, pr *Profile) bool {
	var ok bool
	switch string(key) {
	case "steps":
		if !p.once(0) {
			return false
		}
		pr.Steps, ok = p.int()
	case "tokens":
		if !p.once(1) {
			return false
		}
		pr.Tokens, ok = p.int()
	case "hedges":
		if !p.once(2) {
			return false
		}
		pr.Hedges, ok = p.int()
	case "self_confidence":
		if !p.once(3) {
			return false
		}
		pr.SelfConfidence, ok = p.float()
	}
	return ok
}
