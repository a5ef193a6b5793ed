package jsonscan

import (
	"bytes"
	"fmt"
	"testing"
)

// escapes is a document whose one string is n escaped backslashes: the
// shape that made the string scan quadratic (every escape rescanned the
// rest of the string for its closing quote).
func escapes(n int) []byte {
	return []byte(`{"text":"` + string(bytes.Repeat([]byte(`\\`), n)) + `"}`)
}

func TestCheckEscapesAndMaxString(t *testing.T) {
	doc := escapes(1 << 16)
	st, o := Check(doc, &Rules{})
	if o != nil {
		t.Fatalf("offence in a valid document: %+v", o)
	}
	if want := 4 + 2<<16; st.StringBytes != want {
		t.Errorf("string bytes %d, want %d", st.StringBytes, want)
	}
	_, o = Check(doc, &Rules{MaxString: 1 << 16})
	if o == nil || o.Problem != TooLong || o.Len != 2<<16 || len(o.Path) != 1 || o.Path[0].Key != "text" {
		t.Errorf("a string over MaxString: %+v", o)
	}
}

// BenchmarkCheckEscapes doubles the string: ns/op must double too.
func BenchmarkCheckEscapes(b *testing.B) {
	for _, n := range []int{1 << 16, 1 << 17, 1 << 18} {
		doc := escapes(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				Check(doc, &Rules{})
			}
		})
	}
}

// TestCheckLoneSurrogates: an escaped UTF-16 surrogate outside a pair is
// refused, naming the field, its escape and its byte; a pair (an escaped
// character past U+FFFF) and other escapes are not (issue 34, cause 4:
// "\ud800" and "\udfff" both read as U+FFFD, so different answers agreed).
func TestCheckLoneSurrogates(t *testing.T) {
	for _, c := range []struct {
		doc    string
		lone   string
		offset int
	}{
		{`{"a":"\ud800"}`, `\ud800`, 6},
		{`{"a":"\udfff"}`, `\udfff`, 6},
		{`{"a":"x\uD800\u0041"}`, `\uD800`, 7},
		{`{"a":"\ud83d"}`, `\ud83d`, 6},
		{`{"a":"\udc00\ud800"}`, `\udc00`, 6},
		{`{"\ud800":1}`, `\ud800`, 2},
		{`["ok","\ud800x"]`, `\ud800`, 7},
		{`{"a":"\ud800\\udc00"}`, `\ud800`, 6},
	} {
		_, o := Check([]byte(c.doc), &Rules{})
		if o == nil || o.Problem != LoneSurrogate || o.Key != c.lone || o.Offset != c.offset {
			t.Errorf("%s: offence %+v, want LoneSurrogate %s at byte %d", c.doc, o, c.lone, c.offset)
		}
	}
	for _, doc := range []string{`{"a":"\ud83d\ude00"}`, `{"a":"\uD83D\uDE00 \u00e9 \\ud800 \u0000"}`, `{"a":"\ud7ff\ue000"}`} {
		if _, o := Check([]byte(doc), &Rules{}); o != nil {
			t.Errorf("%s: offence %+v in a valid document", doc, o)
		}
	}
}
