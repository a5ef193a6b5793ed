package serve

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestErrorsQuoteLittle: a 400 quotes at most ~100 bytes of a value, key
// or literal of the body, and says how long it was: a 1e6-digit round got
// a 1 MB body before. The message still names the field and the mistake.
func TestErrorsQuoteLittle(t *testing.T) {
	_, hs, _ := newTestServer(t, Config{})
	big := strings.Repeat("1", 1_000_000)
	half := strings.Repeat("7 ", 200_000) // with spaces
	for _, c := range []struct{ name, body, field, says string }{
		{"integer", `{"round":` + big + `,"rounds":3,"agents":[{},{}]}`, "round", "is out of range"},
		{"negative", `{"round":1,"rounds":3,"mode":"sample","seed":-` + big + `,"agents":[{},{}]}`, "seed", "want a non-negative integer"},
		{"fraction", `{"round":1.` + big + `,"rounds":3,"agents":[{},{}]}`, "round", "is not an integer"},
		{"float", `{"round":1,"rounds":3,"agents":[{"confidence":` + big + `},{}]}`, "agents[0].confidence", "overflows a 64-bit float"},
		{"string", `{"round":1,"rounds":3,"mode":"` + half + `","agents":[{},{}]}`, "mode", `want "greedy" or "sample"`},
		{"unknown key", `{"round":1,"rounds":3,"agents":[{"` + big + `":1},{}]}`, "agents[0].", "unknown field"},
		{"case-folded key", `{"round":1,"rounds":3,"agents":[{"Answer` + strings.Repeat("x", 300_000) + `":"1"},{}]}`, "agents[0].", "unknown field"},
		{"key twice", `{"round":1,"rounds":3,"agents":[{"` + big[:400_000] + `":1,"` + big[:400_000] + `":2},{}]}`, "agents[0].", "duplicate key"},
		{"history", `{"round":1,"rounds":3,"history":[["` + big[:500_000] + `","x"]],"agents":[{"answer":"1"},{"answer":"x"}]}`, "history[0][0]", "the last round holds the current answers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, b := post(t, hs.URL+"/v1/decide", []byte(c.body))
			var eb ErrorBody
			if err := json.Unmarshal(b, &eb); err != nil || code != 400 {
				t.Fatalf("%d %.300s (%v), want 400", code, b, err)
			}
			if len(b) > 600 {
				t.Errorf("a %d-byte body for a %d-byte request: %.300s…", len(b), len(c.body), b)
			}
			if !strings.HasPrefix(eb.Field, c.field) || !strings.Contains(eb.Error, c.says) || !strings.Contains(eb.Error, " bytes)") {
				t.Errorf("%q on %q: want field %s…, %q and the value's length", eb.Error, eb.Field, c.field, c.says)
			}
		})
	}
}

// TestClip: clip keeps short strings, cuts long ones at a character
// boundary and says their length.
func TestClip(t *testing.T) {
	if got := clip("short"); got != "short" {
		t.Errorf("clip(short) = %q", got)
	}
	long := strings.Repeat("é", 200) // 2 bytes each: byte 100 starts a rune, 99 does not
	got := clip("x" + long)
	if !strings.HasSuffix(got, "…(401 bytes)") || len(got) > maxQuote+len("…(401 bytes)") || !strings.HasPrefix(got, "xéé") {
		t.Errorf("clip = %q", got)
	}
	if s := strings.TrimSuffix(got, "…(401 bytes)"); !utf8.ValidString(s) {
		t.Errorf("clip cut a character: %q", s)
	}
}
