package serve

// Limits, beside Config's fields: a body slower than
// Config.ReadTimeout holds its slot until then. The decoder stops at the
// first array past MaxAgents or MaxDeliberations, so a body of bare "{}"
// cannot decode to a hundred times its size (TestDecodeStopsAtLimits).

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// decodeRequest decodes a decide request: the fast parser for the common
// shape, else encoding/json (the reference). Either way an array past its
// protocol limit (MaxDeliberations, MaxAgents) is refused before it is
// decoded whole: check would refuse it anyway, and decoding a 1 MiB body of
// empty objects first would allocate a hundred times the body.
func decodeRequest(b []byte, req *DecideRequest) *ErrorBody { return decodeIn(b, req, new(arena)) }

// decodeIn is decodeRequest with the fast path's values in arena a. The
// body goes through the strict check (checkBody) first.
func decodeIn(b []byte, req *DecideRequest, a *arena) *ErrorBody {
	if _, eb := checkBody(b); eb != nil {
		return eb
	}
	return decodeChecked(b, req, a)
}

// decodeChecked is decodeIn on a body that passed checkBody.
func decodeChecked(b []byte, req *DecideRequest, a *arena) *ErrorBody {
	_, limit, ok := decodeFast(b, req, a)
	if ok {
		return nil
	}
	return decodeSlow(b, req, limit)
}

// decodeFast decodes b by the fast path and, when the fast path takes it,
// measures it as checkBody would. What the fast path takes passes
// checkBody: exact keys, each once, no escapes, valid UTF-8, null only for
// a number. limit is the error of an array past its protocol limit, when
// that stopped the fast path.
func decodeFast(b []byte, req *DecideRequest, a *arena) (st jsonscan.Stats, limit *fieldError, ok bool) {
	p := fastParser{Scanner: jsonscan.Scanner{B: b}, a: a}
	if !p.request(req) {
		return st, p.limit, false
	}
	return jsonscan.Stats{Values: p.values, MeasuredBytes: p.textBytes}, nil, true
}

// decodeSlow decodes b, which passed checkBody but not the fast path, with
// encoding/json after the protocol limits (limit: the fast path's).
func decodeSlow(b []byte, req *DecideRequest, limit *fieldError) *ErrorBody {
	if limit == nil {
		limit = scanLimits(b)
	}
	if limit != nil {
		return &ErrorBody{Kind: "invalid", Error: limit.Error(), Field: limit.field}
	}
	*req = DecideRequest{}
	return decodeJSON(b, req)
}

// tooMany is the error of an array past its limit, found while decoding
// (so the count beyond the limit is not known).
func tooMany(field string, limit int) *fieldError {
	if field == "deliberations" {
		return ferr(field, "more than %d deliberations, at most %d per request", limit, limit)
	}
	return ferr(field, "more than %d agents, at most %d", limit, limit)
}

// agentsPath is the path of the agents of deliberation di of a batch, or of
// the top-level deliberation when di < 0.
func agentsPath(di int) string {
	if di < 0 {
		return "agents"
	}
	return join(index("deliberations", di), "agents")
}

// scanLimits walks b's tokens, without decoding it, and returns the error
// of the first deliberations or agents array past its limit, or nil (also
// when b is not valid JSON: decodeJSON reports that). Keys match as
// encoding/json matches them, case-insensitively.
func scanLimits(b []byte) *fieldError {
	const (
		other    = iota
		request  // the request object
		batch    // its deliberations array
		delibObj // one deliberation of the batch
		agents   // an agents array
	)
	type frame struct {
		array     bool
		kind, n   int // n: elements so far (arrays)
		di        int // deliberation index (delibObj, agents; -1 at the top)
		key       string
		expectKey bool
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber() // numbers are skipped, not parsed
	var st []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		d, isDelim := tok.(json.Delim)
		if isDelim && (d == '}' || d == ']') {
			st = st[:len(st)-1]
			continue
		}
		kind, di := other, -1
		switch n := len(st); {
		case n == 0:
			if d == '{' {
				kind = request
			}
		case st[n-1].array:
			top := &st[n-1]
			top.n++
			switch {
			case top.kind == batch && top.n > MaxDeliberations:
				return tooMany("deliberations", MaxDeliberations)
			case top.kind == agents && top.n > MaxAgents:
				return tooMany(agentsPath(top.di), MaxAgents)
			case top.kind == batch && d == '{':
				kind, di = delibObj, top.n-1
			}
		case st[n-1].expectKey:
			st[n-1].key, _ = tok.(string)
			st[n-1].expectKey = false
			continue
		default: // a member's value
			top := &st[n-1]
			top.expectKey = true
			switch {
			case d != '[':
			case top.kind == request && strings.EqualFold(top.key, "deliberations"):
				kind = batch
			case (top.kind == request || top.kind == delibObj) && strings.EqualFold(top.key, "agents"):
				kind, di = agents, top.di
			}
		}
		if isDelim {
			st = append(st, frame{array: d == '[', kind: kind, di: di, expectKey: d == '{'})
		}
	}
}
