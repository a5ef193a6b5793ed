package transcript

import (
	"strings"
	"testing"
)

// TestStrictTranscripts: a message with "content" twice or "ROLE"/"Content"
// for "role"/"content", an agora question with "answer" twice, and an
// escaped lone surrogate anywhere (a message, a question) are refused,
// naming the file, the question and the key (issue 34, causes 4 and 5:
// the last value won, the case was ignored, "\ud800" and "\udfff" both
// read as U+FFFD).
func TestStrictTranscripts(t *testing.T) {
	chat := func(assistant string) string {
		return `[{"role":"user","content":"What is 1?"},` + assistant + `]`
	}
	debate := func(assistant string) string {
		return `{"What is 1?": [[` + chat(assistant) + `,` + chat(`{"role":"assistant","content":"1"}`) + `], "1"]}`
	}
	for _, c := range []struct {
		name, file, doc string
		want            []string
	}{
		{"content twice", "gsm_a.json", debate(`{"role":"assistant","content":"\\boxed{1}","content":"\\boxed{2}"}`),
			[]string{"gsm_a.json", "question 0", `"content" given twice`}},
		{"role twice", "gsm_a.json", debate(`{"role":"user","content":"2","role":"assistant"}`),
			[]string{"question 0", `"role" given twice`}},
		{"ROLE", "gsm_a.json", debate(`{"ROLE":"assistant","content":"2"}`),
			[]string{"question 0", `did you mean "role"`}},
		{"Content", "gsm_a.json", debate(`{"role":"assistant","Content":"2"}`),
			[]string{"question 0", `did you mean "content"`}},
		{"surrogate answer", "gsm_a.json", debate(`{"role":"assistant","content":"\ud800"}`),
			[]string{"gsm_a.json", "question 0", `lone UTF-16 surrogate \ud800`}},
		{"surrogate question", "gsm_a.json", `{"What is \udfff?": [[` + chat(`{"role":"assistant","content":"1"}`) + `,` + chat(`{"role":"assistant","content":"1"}`) + `], "1"]}`,
			[]string{"question 0", `lone UTF-16 surrogate \udfff`}},
		{"agora answer twice", "agora_gsm_a.json", `[{"question": "What is 1?", "agent_response": {"a": ["1"], "b": ["1"]}, "answer": "1", "answer": "2"}]`,
			[]string{"agora_gsm_a.json", "question 0", `"answer" given twice`}},
		{"agora Question", "agora_gsm_a.json", `[{"Question": "What is 1?", "agent_response": {"a": ["1"], "b": ["1"]}, "answer": "1"}]`,
			[]string{"question 0", `did you mean "question"`}},
		{"agora surrogate", "agora_gsm_a.json", `[{"question": "What is 1?", "agent_response": {"a": ["\ud800"], "b": ["\udfff"]}, "answer": "1"}]`,
			[]string{"question 0", `lone UTF-16 surrogate \ud800`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := eachErr(t, c.file, c.doc)
			t.Log(err)
			wantErr(t, err, c.want...)
		})
	}
	// The same with one content, and an escaped pair, read.
	ok := debate(`{"role":"assistant","content":"\ud83d\ude00 \\boxed{1}"}`)
	if err := eachErr(t, "gsm_a.json", ok); err != nil {
		t.Errorf("%s: %v", ok, err)
	}
	if !strings.Contains(ok, `\ud83d`) {
		t.Fatal("the pair is not escaped")
	}
}
