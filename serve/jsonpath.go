package serve

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
)

// encoding/json reports where a value of the wrong type sits as a byte
// offset and a path without array indices ("deliberations.agents.answer");
// these helpers recover the full path ("deliberations[1].agents[0].answer")
// by walking the tokens of the body, which was well-formed up to there.

// pathFrame is one open object or array of the walk.
type pathFrame struct {
	array     bool
	idx       int    // array: index of the current element
	key       string // object: key of the current member
	expectKey bool   // object: the next string token is a key
}

func framesPath(st []pathFrame) string {
	var b strings.Builder
	for _, f := range st {
		if f.array {
			b.WriteString("[" + strconv.Itoa(f.idx) + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(clip(f.key))
	}
	return b.String()
}

// walkJSON calls visit with the path of every value of b, in order, and the
// input offset just past its first token; it stops when visit returns true
// and returns that path, or "" when the walk ends first.
func walkJSON(b []byte, visit func(path string, end int64, key string) bool) string {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var st []pathFrame
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		if n := len(st); n > 0 && !st[n-1].array && st[n-1].expectKey {
			if k, ok := tok.(string); ok {
				st[n-1].key, st[n-1].expectKey = k, false
				if visit(framesPath(st), dec.InputOffset(), k) {
					return framesPath(st)
				}
				continue
			}
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			st = st[:len(st)-1]
			if n := len(st); n > 0 && !st[n-1].array {
				st[n-1].expectKey = true
			}
			continue
		}
		if n := len(st); n > 0 && st[n-1].array {
			st[n-1].idx++
		}
		if visit(framesPath(st), dec.InputOffset(), "") {
			return framesPath(st)
		}
		switch tok {
		case json.Delim('{'):
			st = append(st, pathFrame{expectKey: true})
		case json.Delim('['):
			st = append(st, pathFrame{array: true, idx: -1})
		default:
			if n := len(st); n > 0 && !st[n-1].array {
				st[n-1].expectKey = true
			}
		}
	}
}

// pathAtOffset is the path of the value whose first token ends at or past
// off (an UnmarshalTypeError's Offset).
func pathAtOffset(b []byte, off int64) string {
	return walkJSON(b, func(_ string, end int64, key string) bool { return key == "" && end >= off })
}

// pathOfKey is the path of the first member named key (an unknown field).
func pathOfKey(b []byte, key string) string {
	return walkJSON(b, func(_ string, _ int64, k string) bool { return k == key })
}
