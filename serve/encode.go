package serve

import (
	"errors"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/mpdf/mpdf/metapolicy"
)

// A decide response is written by hand rather than by encoding/json's
// reflection, which was the largest single cost of a batched request. The
// bytes are exactly those json.Marshal writes (TestEncoderMatchesJSON).

var errNonFinite = errors.New("serve: non-finite probability in a response")

// flushSize is the size at which appendResponse hands its bytes to flush.
const flushSize = 64 << 10

// appendResponse appends the JSON of r, as json.Marshal would write it.
// flush, when not nil, takes the bytes so far whenever they pass flushSize
// (between decisions) and returns the buffer to go on with.
func appendResponse(b []byte, r *DecideResponse, flush func([]byte) []byte) ([]byte, error) {
	b = append(b, `{"feature_version":`...)
	b = appendString(b, r.FeatureVersion)
	b = append(b, `,"policy":`...)
	b = appendString(b, r.Policy)
	if r.Step != nil {
		b = append(b, `,"step":`...)
		b = strconv.AppendInt(b, *r.Step, 10)
	}
	b = append(b, `,"mode":`...)
	b = appendString(b, r.Mode)
	if r.Seed != nil {
		b = append(b, `,"seed":`...)
		b = strconv.AppendUint(b, *r.Seed, 10)
	}
	var err error
	if r.Result != nil {
		b = append(b, ',')
		if b, err = appendResultFields(b, r.Result, flush); err != nil {
			return nil, err
		}
	}
	if len(r.Results) > 0 {
		b = append(b, `,"results":[`...)
		for i := range r.Results {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '{')
			if b, err = appendResultFields(b, &r.Results[i], flush); err != nil {
				return nil, err
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}'), nil
}

// appendResultFields appends the members of a Result, without braces.
func appendResultFields(b []byte, r *Result, flush func([]byte) []byte) ([]byte, error) {
	if r.ID != "" {
		b = append(b, `"id":`...)
		b = appendString(b, r.ID)
		b = append(b, ',')
	}
	b = append(b, `"team_answer":`...)
	b = appendStringFlush(b, r.TeamAnswer, flush)
	if r.Agents == nil {
		return append(b, `,"agents":null`...), nil
	}
	b = append(b, `,"agents":[`...)
	for i := range r.Agents {
		d := &r.Agents[i]
		if i > 0 {
			b = append(b, ',')
		}
		if !d.Action.Valid() {
			_, err := d.Action.MarshalText() // the error encoding/json would give
			return nil, err
		}
		b = append(b, `{"action":"`...)
		b = append(b, d.Action.String()...)
		b = append(b, `","probs":{`...)
		ok := true
		for a, p := range d.Probs {
			if a > 0 {
				b = append(b, ',')
			}
			b = append(b, '"')
			b = append(b, metapolicy.Action(a).String()...)
			b = append(b, `":`...)
			b, ok = appendFloat(b, p, ok)
		}
		b = append(b, `},"log_prob":`...)
		b, ok = appendFloat(b, d.LogProb, ok)
		if !ok {
			return nil, errNonFinite
		}
		b = append(b, `,"answer":`...)
		b = appendStringFlush(b, d.Answer, flush)
		b = append(b, `,"concede_target":`...)
		b = appendStringFlush(b, d.ConcedeTarget, flush)
		b = append(b, '}')
		if flush != nil && len(b) >= flushSize {
			b = flush(b)
		}
	}
	b = append(b, ']')
	if r.FeaturesIncomplete != "" {
		b = append(b, `,"features_incomplete":`...)
		b = appendString(b, r.FeaturesIncomplete)
	}
	return b, nil
}

// checkResponse returns the error appendResponse would meet in r (an
// invalid action, a non-finite number), so that it can be answered with
// 500 before a streamed response has begun.
func checkResponse(r *DecideResponse) error {
	for _, res := range r.results() {
		for i := range res.Agents {
			d := &res.Agents[i]
			if !d.Action.Valid() {
				_, err := d.Action.MarshalText()
				return err
			}
			nonFinite := math.IsNaN(d.LogProb) || math.IsInf(d.LogProb, 0)
			for _, f := range d.Probs {
				nonFinite = nonFinite || math.IsNaN(f) || math.IsInf(f, 0)
			}
			if nonFinite {
				return errNonFinite
			}
		}
	}
	return nil
}

// appendFloat writes f as encoding/json does; ok turns false on NaN or ±Inf.
func appendFloat(b []byte, f float64, ok bool) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return append(b, '0'), false
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' { // e-09 → e-9, as encoding/json writes it
		if n := len(b); n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, ok
}

// appendString writes s as a JSON string the way encoding/json does:
// quotes, backslashes and control characters escaped, the HTML characters
// <, > and & as \u003c..., invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped (TestAppendStringMatchesJSON). It escapes in place rather than
// through json.Marshal, whose copy of a long answer repeated as every
// concede target was most of a response's garbage.
func appendString(b []byte, s string) []byte { return appendStringFlush(b, s, nil) }

// appendStringFlush is appendString handing the bytes so far to flush (when
// not nil) as they pass flushSize, so that a long answer repeated in a
// response is never held escaped whole.
func appendStringFlush(b []byte, s string, flush func([]byte) []byte) []byte {
	const hex = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		if flush != nil && len(b)+i-start >= flushSize {
			b = flush(append(b, s[start:i]...))
			start = i
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
