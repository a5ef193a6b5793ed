package jsonscan

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func readGuarded(s string, maxStr, maxElem int64) (string, error) {
	g := &Guard{R: iotest.OneByteReader(strings.NewReader(s)), MaxString: maxStr, MaxElement: maxElem}
	var out bytes.Buffer
	_, err := io.Copy(&out, g)
	return out.String(), err
}

func TestGuardStrings(t *testing.T) {
	cases := []struct {
		in       string
		max      int64
		wantOff  int64 // -1: passes
		wantElem int
	}{
		{`{"abcd": ["1234"]}`, 4, -1, 0},
		{`{"abcde": ["1234"]}`, 4, 1, 0},
		{`{"a": ["12345"]}`, 4, 7, 0},
		{`{"a": ["1234"], "b": ["1\"3", "12\\3"]}`, 4, 30, 1}, // escapes count as written: 1\"3 is 4 bytes, 12\\3 is 5
		{`["x", {"q": "ok", "t": "abcdefgh"}]`, 4, 23, 1},
		{`"abcdefgh"`, 4, 0, 0}, // a top-level string is capped too
	}
	for _, c := range cases {
		out, err := readGuarded(c.in, c.max, 0)
		var le *LimitError
		if c.wantOff < 0 {
			if err != nil || out != c.in {
				t.Errorf("%s: %q, %v; want it passed whole", c.in, out, err)
			}
			continue
		}
		if !errors.As(err, &le) || !le.String || le.Offset != c.wantOff || le.Element != c.wantElem || le.Limit != c.max {
			t.Errorf("%s: %+v (%v), want a string over %d at offset %d in element %d", c.in, le, err, c.max, c.wantOff, c.wantElem)
			continue
		}
		// Nothing past the limit was passed on: the string is cut at max+1 bytes at most.
		if int64(len(out)) > c.wantOff+1+c.max {
			t.Errorf("%s: passed %d bytes (%q), beyond the limit", c.in, len(out), out)
		}
	}
}

func TestGuardElements(t *testing.T) {
	in := `{"q1": [1, 2], "q2": [1, 2, 3, 4, 5, 6], "q3": []}`
	if _, err := readGuarded(in, 0, 40); err != nil {
		t.Fatal(err)
	}
	out, err := readGuarded(in, 0, 20)
	var le *LimitError
	if !errors.As(err, &le) || le.String || le.Element != 1 || le.Offset != 15 {
		t.Fatalf("%+v (%v), want element 1 at offset 15 over the limit", le, err)
	}
	if len(out) != 15+20 {
		t.Fatalf("passed %d bytes, want the element's first 20 after 15", len(out))
	}
	// Exactly at the limit passes: `"q2": [1, 2, 3, 4, 5, 6]` is 24 bytes.
	if _, err := readGuarded(in, 0, 24); err != nil {
		t.Fatal(err)
	}
	if _, err := readGuarded(in, 0, 23); err == nil {
		t.Fatal("an element of 24 bytes passed a limit of 23")
	}
	// A top-level number is capped as an element.
	if _, err := readGuarded("  "+strings.Repeat("9", 50), 0, 20); !errors.As(err, &le) || le.Offset != 2 {
		t.Fatalf("a long top-level number: %v", err)
	}
	// Later reads keep failing.
	g := &Guard{R: strings.NewReader(`["abcdef"]`), MaxString: 2}
	io.Copy(io.Discard, g)
	if _, err := g.Read(make([]byte, 8)); err == nil {
		t.Fatal("read after the limit succeeded")
	}
}

// TestGuardLoneSurrogates: the Guard stops a stream at an escaped UTF-16
// surrogate outside a pair, wherever the string is (a key, a value, deep),
// naming its backslash; pairs and other escapes pass (issue 34, cause 4).
func TestGuardLoneSurrogates(t *testing.T) {
	for _, c := range []struct {
		in      string
		wantOff int64 // -1: passes
		escape  rune
	}{
		{`{"q": ["\ud83d\ude00", "\u00e9\n\\ud800"]}`, -1, 0},
		{`{"q": ["\ud800"]}`, 8, 0xd800},
		{`{"q": ["ab\udfff"]}`, 10, 0xdfff},
		{`{"\uD800\u0041": 1}`, 2, 0xd800},
		{`{"q": ["\ud800\\udc00"]}`, 8, 0xd800},
		{`{"q": ["\ud800x"]}`, 8, 0xd800},
		{`["\udbff\udfff", "\udc00"]`, 18, 0xdc00},
	} {
		out, err := readGuarded(c.in, 0, 0)
		var se *SurrogateError
		if c.wantOff < 0 {
			if err != nil || out != c.in {
				t.Errorf("%s: %q, %v; want it passed whole", c.in, out, err)
			}
			continue
		}
		if !errors.As(err, &se) || se.Offset != c.wantOff || se.Escape != c.escape {
			t.Errorf("%s: %v, want a lone surrogate %#x at offset %d", c.in, err, c.escape, c.wantOff)
		}
	}
}
