package data

import (
	"bufio"
	"strings"
	"testing"
)

func TestTranscriptLayout(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"What is 1?": [[[{"role": "user", "content": "q"}]], "1"]}`, "debate"},
		{"\xef\xbb\xbf{\n  \"Q \\\" quoted\" :\n [\n  [ [\"plain\"]]]}", "debate"},
		{`[{"question_id": 0, "question": "q", "agent_response": {}}]`, "agora"},
		{"[\n {\n  \"question_id\": 12,\n  \"question\": \"q\"}]", "agora"},
		{`[{"question": "q", "agent_response": {"a": ["1"]}}]`, "agora"},
		{`[{"kind": "episode", "id": "e", "question": "q", "agents": 2}]`, ""}, // episodes in an array
		{`[{"question": "q", "answer": "1"}]`, ""},
		// Rollout records, whatever their key order, are never taken for one.
		{`{"kind":"episode","id":"e","task":"t","agents":2,"rounds":[{"turns":[]}]}`, ""},
		{`{"rounds":[{"turns":[]}],"kind":"episode"}`, ""},
		{`{"features":[[[1]]],"kind":"decision"}`, ""}, // invalid, but no chat of messages
		{`{"group":"g","features":[1,2],"kind":"decision"}`, ""},
		{`[1, 2]`, ""},
		{`[{"id": {"question": 1}}]`, ""},
		{``, ""},
		{`not json`, ""},
	}
	for _, c := range cases {
		if got := sniffTranscript(bufio.NewReader(strings.NewReader(c.in))); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
	// A question longer than one peek is still told, up to the buffer.
	long := `{"` + strings.Repeat("x", 10000) + `": [[["a"]]]}`
	if got := sniffTranscript(bufio.NewReaderSize(strings.NewReader(long), 64<<10)); got != "debate" {
		t.Errorf("a 10 kB question: %q, want debate", got)
	}
}
