package serve

// Bodies are held to the rollout reader's strictness (strict.go, through
// internal/jsonscan.Check, data's walk): a key given twice or in another
// case, null where an object or array belongs, invalid UTF-8 or nesting
// deeper than a request get 400 naming the field (TestStrictRequests).

import (
	"fmt"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// requestRules hold a decide request to one strictness with the rollout
// reader's (jsonscan.Check, which data's records go through too): no key
// twice, no key that matches a field only regardless of case ("ROUND"),
// no null where an object or array belongs (agents, deliberations,
// history, profile, and any array element: encoding/json would leave the
// field empty or decode an empty agent), no invalid UTF-8 (encoding/json
// would read "560\xff" and "560\xfe" as one vote), no nesting deeper than
// a request has. Null stays allowed for a scalar field, meaning absent
// (the documented null confidence).
var requestRules = jsonscan.Rules{
	Fields: []string{"deliberations", "mode", "seed", "id", "kind", "round", "rounds", "agents", "history",
		"answer", "text", "completion_tokens", "confidence", "profile", "steps", "tokens", "hedges", "self_confidence", "model"},
	Containers:       []string{"deliberations", "agents", "history", "profile"},
	NoNullContainers: true,
	MaxDepth:         maxNesting,
	Measured:         []string{"text"},
}

// maxNesting is the deepest nesting of objects and arrays a request may
// have: request, deliberations, deliberation, agents, agent, profile is 6.
const maxNesting = 8

// checkBody walks a body once before it is decoded: it refuses what the
// strict rules refuse, naming the field, and measures the body for the
// memory budget.
func checkBody(b []byte) (jsonscan.Stats, *ErrorBody) {
	st, o := jsonscan.Check(b, &requestRules)
	if o == nil {
		return st, nil
	}
	field := ""
	for _, seg := range o.Path {
		if seg.IsKey {
			field = join(field, seg.Key)
		} else {
			field = index(field, seg.Index)
		}
	}
	var msg string
	switch o.Problem {
	case jsonscan.DuplicateKey:
		what := "twice"
		if o.Key != o.Other {
			what = "twice (as " + quote(o.Other) + " and " + quote(o.Key) + ": names match regardless of case)"
		}
		msg = "duplicate key: the object has it " + what + "; which value wins is up to the reader"
	case jsonscan.KeyCase:
		msg = fmt.Sprintf("unknown field (keys are case-sensitive: did you mean %s?)", quote(o.Other))
	case jsonscan.NullContainer:
		if field == "" {
			return st, &ErrorBody{Kind: "bad_json", Error: "body: null, want a JSON object"}
		}
		msg = "null where an object or array belongs: leave the field out, or give it"
		if last := o.Path[len(o.Path)-1]; !last.IsKey {
			msg = "null: an element of an array cannot be null"
		}
	case jsonscan.InvalidUTF8:
		msg = fmt.Sprintf("invalid UTF-8 (byte %d of the body is 0x%02x): text must be UTF-8, or bytes that differ would read alike", o.Offset+1, o.Byte)
	case jsonscan.LoneSurrogate:
		msg = fmt.Sprintf("a lone UTF-16 surrogate %s (byte %d of the body): not a character, and texts that differ would read alike", o.Key, o.Offset+1)
	case jsonscan.TooDeep:
		msg = fmt.Sprintf("nested deeper than %d levels, more than any request has", maxNesting)
	}
	if field == "" {
		return st, &ErrorBody{Kind: "bad_json", Error: "body: " + msg}
	}
	return st, &ErrorBody{Kind: "invalid", Field: field, Error: field + ": " + msg}
}
