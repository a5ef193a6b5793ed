package jsonscan

import (
	"bytes"
	"encoding/json"
	"testing"
	"unicode/utf8"
)

// countValues counts the values of a decoded document as Stats.Values
// counts those of its text.
func countValues(v any) int {
	n := 1
	switch v := v.(type) {
	case map[string]any:
		for _, e := range v {
			n += countValues(e)
		}
	case []any:
		for _, e := range v {
			n += countValues(e)
		}
	}
	return n
}

// tokenValues counts the values of a valid document from encoding/json's
// tokens (keys apart), duplicates included.
func tokenValues(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	type frame struct{ obj, expectKey bool }
	var st []frame
	n := 0
	for {
		tok, err := dec.Token()
		if err != nil {
			return n
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			st = st[:len(st)-1]
			if k := len(st); k > 0 && st[k-1].obj {
				st[k-1].expectKey = true
			}
			continue
		}
		if k := len(st); k > 0 && st[k-1].obj && st[k-1].expectKey {
			st[k-1].expectKey = false
			continue
		}
		n++
		switch tok {
		case json.Delim('{'):
			st = append(st, frame{obj: true, expectKey: true})
		case json.Delim('['):
			st = append(st, frame{})
		default:
			if k := len(st); k > 0 && st[k-1].obj {
				st[k-1].expectKey = true
			}
		}
	}
}

// FuzzCheck holds Check to encoding/json on any valid document: what it
// accepts, encoding/json reads without losing a value to a duplicate key
// (its value count matches) and without replacing a byte (the document is
// valid UTF-8); what it refuses as a duplicate or invalid UTF-8 is one.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[1,2,{"c":null}]}`, `{"a":1,"A":2}`, `{"a":{"b":1,"b":2}}`, "[\"\xff\"]", `{"a\u0062":1,"ab":2}`, `[]`, `"x"`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if !json.Valid(b) {
			Check(b, &Rules{}) // must not panic
			return
		}
		st, o := Check(b, &Rules{})
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%q: valid but %v", b, err)
		}
		switch {
		case o == nil:
			if n, m := countValues(v), tokenValues(b); n != st.Values || m != st.Values {
				t.Fatalf("%q accepted: %d values, encoding/json read %d (%d tokens)", b, st.Values, n, m)
			}
			if !utf8.Valid(b) {
				t.Fatalf("%q accepted with invalid UTF-8", b)
			}
		case o.Problem == InvalidUTF8:
			if utf8.Valid(b) {
				t.Fatalf("%q: invalid UTF-8 reported in valid UTF-8", b)
			}
		case o.Problem == DuplicateKey:
			// Case-folded duplicates both survive in a map; exact ones
			// do not.
			if o.Key == o.Other && countValues(v) >= tokenValues(b) {
				t.Fatalf("%q: duplicate %q reported, but encoding/json lost nothing", b, o.Key)
			}
		default:
			t.Fatalf("%q: %v under the zero rules", b, o.Problem)
		}
	})
}

// TestCheckRules: each rule refuses what it names, with the path, and the
// zero rules refuse none of it.
func TestCheckRules(t *testing.T) {
	r := &Rules{Fields: []string{"agents", "round"}, Containers: []string{"agents"}, NoNullContainers: true, MaxDepth: 3, Measured: []string{"text"}}
	for _, c := range []struct {
		doc  string
		want Problem
		path string
	}{
		{`{"ROUND":1}`, KeyCase, "ROUND"},
		{`{"agents":null}`, NullContainer, "agents"},
		{`{"agents":[{},null]}`, NullContainer, "agents[1]"},
		{`{"x":[[[1]]]}`, TooDeep, "x[0][0]"},
		{`{"agents":[{"a":1,"a":2}]}`, DuplicateKey, "agents[0].a"},
		{`null`, NullContainer, ""},
	} {
		_, o := Check([]byte(c.doc), r)
		var path string
		if o != nil {
			for _, s := range o.Path {
				if s.IsKey {
					path += "." + s.Key
				} else {
					path += "[" + string(rune('0'+s.Index)) + "]"
				}
			}
			if len(path) > 0 && path[0] == '.' {
				path = path[1:]
			}
		}
		if o == nil || o.Problem != c.want || path != c.path {
			t.Errorf("%s: %+v (path %q), want problem %d at %q", c.doc, o, path, c.want, c.path)
		}
		if _, o := Check([]byte(c.doc), &Rules{}); o != nil && c.want != DuplicateKey {
			t.Errorf("%s: the zero rules refused it: %+v", c.doc, o)
		}
	}
	st, o := Check([]byte(`{"text":"abc","b":["text"],"c":{"text":"de"}}`), r)
	if o != nil || st.MeasuredBytes != 5 || st.Values != 6 {
		t.Errorf("measure: %+v %+v, want 5 measured bytes in 6 values", st, o)
	}
}
