package serve

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
)

// TestStrictRequests: what encoding/json accepts silently but the rollout
// reader refuses is refused by the server too, with 400 naming the field:
// a key given twice (the second "agents" won), a key in another case
// ("ROUND" read as round), null where an object or array belongs (an empty
// agent, a batch beside null agents), invalid UTF-8 ("560\xff" and
// "560\xfe" counted as one vote).
func TestStrictRequests(t *testing.T) {
	_, hs, _ := newTestServer(t, Config{})
	two := `[{"answer":"1"},{"answer":"2"}]`
	batch := `"deliberations":[{"round":1,"rounds":1,"agents":` + two + `}]`
	for _, c := range []struct {
		name, body, field, says string
	}{
		{"duplicate agents", `{"round":1,"rounds":1,"agents":` + two + `,"agents":[{"answer":"3"},{"answer":"3"}]}`, "agents", "duplicate key"},
		{"duplicate in other case", `{"round":1,"rounds":1,"agents":` + two + `,"Agents":` + two + `}`, "Agents", "duplicate key"},
		{"duplicate deep", `{"round":1,"rounds":1,"agents":[{"answer":"1","answer":"2"},{}]}`, "agents[0].answer", "duplicate key"},
		{"upper-case key", `{"ROUND":1,"rounds":1,"agents":` + two + `}`, "ROUND", `did you mean "round"`},
		{"folded key (long s)", `{"round":1,"rounds":1,"agents":[{"profile":{"ſteps":3}},{}]}`, "agents[0].profile.ſteps", `did you mean "steps"`},
		{"null agent", `{"round":1,"rounds":1,"agents":[null,{"answer":"1"}]}`, "agents[0]", "cannot be null"},
		{"null agents beside a batch", `{` + batch + `,"agents":null}`, "agents", "null"},
		{"null deliberations", `{"deliberations":null,"round":1,"rounds":1,"agents":` + two + `}`, "deliberations", "null"},
		{"null profile", `{"round":1,"rounds":1,"agents":[{"profile":null},{}]}`, "agents[0].profile", "null"},
		{"null history row", `{"round":1,"rounds":1,"history":[null],"agents":` + two + `}`, "history[0]", "cannot be null"},
		{"null history cell", `{"round":1,"rounds":1,"history":[["1",null]],"agents":` + two + `}`, "history[0][1]", "cannot be null"},
		{"invalid UTF-8", "{\"round\":1,\"rounds\":1,\"agents\":[{\"answer\":\"560\xff\"},{\"answer\":\"560\xfe\"},{\"answer\":\"7\"}]}", "agents[0].answer", "invalid UTF-8"},
		{"invalid UTF-8 key", "{\"round\":1,\"rounds\":1,\"agents\":[{\"a\xff\":1},{}]}", "agents[0]", "invalid UTF-8"},
		// Issue 34, cause 4: both read as U+FFFD before, so they agreed.
		{"lone surrogates", `{"round":1,"rounds":1,"agents":[{"answer":"\ud800"},{"answer":"\udfff"}]}`, "agents[0].answer", "lone UTF-16 surrogate"},
		{"too deep", `{"round":1,"rounds":1,"agents":` + two + `,"x":[[[[[[[[1]]]]]]]]}`, "x[0][0][0][0][0][0][0]", "nested deeper"},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, b := post(t, hs.URL+"/v1/decide", []byte(c.body))
			var eb ErrorBody
			if err := json.Unmarshal(b, &eb); err != nil {
				t.Fatalf("%d %q: %v", code, b, err)
			}
			if code != http.StatusBadRequest || eb.Field != c.field || !strings.Contains(eb.Error, c.says) {
				t.Errorf("%d %+v, want 400 naming %s and saying %q", code, eb, c.field, c.says)
			}
		})
	}
	// Still accepted: null for a scalar (absent: the documented unknown
	// confidence), an escaped key that spells a field exactly.
	for _, body := range []string{
		`{"round":1,"rounds":1,"agents":[{"answer":"1","confidence":null},{"answer":"2","profile":{"self_confidence":null}}]}`,
		`{"round":1,"rounds":1,"agent\u0073":` + two + `}`,
		`{"round":1,"rounds":1,"agents":[{"answer":"λ"},{"answer":"2"}]}`,
	} {
		if code, b := post(t, hs.URL+"/v1/decide", []byte(body)); code != http.StatusOK {
			t.Errorf("%s: %d %s, want 200", body, code, b)
		}
	}
}
