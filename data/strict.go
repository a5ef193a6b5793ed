package data

// Decoding is strict: unknown fields are rejected (so that typos surface),
// required fields must be present, null means absent, NaN and Infinity
// (not JSON, but written by Python's json module) are named as such.
// Field names match case-insensitively, as in encoding/json. Flat decision
// records take a reflection-free fast path whose results FuzzReader checks
// against the general encoding/json path.

import (
	"strconv"

	"github.com/mpdf/mpdf/internal/jsonscan"
)

// checkStrict finds what encoding/json accepts silently but a record must
// not hold (jsonscan.Check, the walk serve's requests share): an object key
// given twice (encoding/json keeps the last value, other readers the
// first; keys are compared as encoding/json matches them,
// case-insensitively) and a string with invalid UTF-8 (encoding/json turns
// each bad byte into U+FFFD, so that "560\xff" and "560\xfe" would read as
// one answer). line is one JSON value of valid syntax (the decoder has
// accepted it). It returns the first offence in document order, with its
// JSON path, or nil. A string over MaxTextBytes is refused too.
func checkStrict(line []byte) *RecordError {
	return strictOffence(line)
}

// recordRules are jsonscan's rules for a record: beyond duplicate keys and
// invalid UTF-8, no string over MaxTextBytes.
var recordRules = jsonscan.Rules{MaxString: MaxTextBytes}

func strictOffence(line []byte) *RecordError {
	_, o := jsonscan.Check(line, &recordRules)
	if o == nil {
		return nil
	}
	var p string
	for _, seg := range o.Path {
		if seg.IsKey {
			p = join(p, seg.Key)
		} else {
			p += "[" + strconv.Itoa(seg.Index) + "]"
		}
	}
	p = orJSON(p)
	if o.Problem == jsonscan.TooLong {
		return fieldErr(p, "a string of %d bytes, over the limit of %d per text", o.Len, MaxTextBytes)
	}
	if o.Problem == jsonscan.InvalidUTF8 {
		return fieldErr(p, "invalid UTF-8 (byte %d of the line is 0x%02x): text must be UTF-8, or bytes that differ would read alike", o.Offset+1, o.Byte)
	}
	if o.Problem == jsonscan.LoneSurrogate {
		return fieldErr(p, "a lone UTF-16 surrogate %s (byte %d of the line): not a character, and texts that differ would read alike", o.Key, o.Offset+1)
	}
	what := "twice"
	if o.Key != o.Other {
		what = "twice (as " + strconv.Quote(o.Other) + " and " + strconv.Quote(o.Key) + ": names match regardless of case)"
	}
	return fieldErr(p, "duplicate key: the object has it %s; which value wins is up to the reader", what)
}
