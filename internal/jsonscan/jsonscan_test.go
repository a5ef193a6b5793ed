package jsonscan

import (
	"encoding/json"
	"testing"
)

// Number accepts exactly JSON's numbers: whatever it reads whole is valid
// JSON, and every valid JSON number is read whole.
func TestNumberIsJSONGrammar(t *testing.T) {
	for _, lit := range []string{
		"0", "-0", "7", "-12", "10", "1.5", "0.25", "-0.5", "1e5", "1E+5", "2.5e-3", "-0e0",
		"", "-", "+1", "01", "-01", ".5", "1.", "1.e3", "1e", "1e+", "0x10", "--1", "1..2", "Infinity", "NaN",
	} {
		s := Scanner{B: []byte(lit)}
		got, ok := s.Number()
		whole := ok && len(got) == len(lit) && s.I == len(lit)
		if want := json.Valid([]byte(lit)); whole != want {
			t.Errorf("Number(%q) = %q, %v (I=%d): whole %v, encoding/json says valid=%v", lit, got, ok, s.I, whole, want)
		}
	}
}

func TestRawString(t *testing.T) {
	for _, c := range []struct {
		in, want string
		ok       bool
	}{
		{` "abc"`, "abc", true},
		{`"λ = 0"`, "λ = 0", true},
		{`""`, "", true},
		{`"a\"b"`, "", false},   // escapes: left to encoding/json
		{"\"a\tb\"", "", false}, // a control character
		{"\"\xff\"", "", false}, // invalid UTF-8
		{`"open`, "", false},    // unterminated
		{`abc`, "", false},      // not a string
	} {
		s := Scanner{B: []byte(c.in)}
		got, ok := s.RawString()
		if ok != c.ok || (ok && string(got) != c.want) {
			t.Errorf("RawString(%q) = %q, %v; want %q, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestPunctuation(t *testing.T) {
	s := Scanner{B: []byte(" { \n null\t} ")}
	if !s.Byte('{') || s.Byte('}') || !s.Null() || s.Null() || !s.Byte('}') || !s.End() {
		t.Errorf("scan of %q stopped at %d", s.B, s.I)
	}
}
