package data

import (
	"errors"
	"strings"
	"testing"
)

const (
	goodDecision = `{"kind":"decision","group":"g","features":[0.5,1,-2],"action":"refine","reward":1,"logprob":-0.5}`
	goodEpisode  = `{"kind":"episode","id":"e1","task":"t1","gold":"4","agents":2,"rounds":[` +
		`{"turns":[{"answer":"4","confidence":0.8,"profile":{"steps":3},"tokens":100},{"answer":"5","profile":{},"tokens":90}]},` +
		`{"turns":[{"action":"persist","logprob":-0.1,"answer":"4","profile":{},"tokens":0},{"action":"concede","answer":"4","profile":{},"tokens":20}]}]}`
)

// episodeWith replaces the first occurrence of old in goodEpisode.
func episodeWith(old, new string) string {
	if !strings.Contains(goodEpisode, old) {
		panic("episodeWith: " + old)
	}
	return strings.Replace(goodEpisode, old, new, 1)
}

func decisionWith(old, new string) string {
	if !strings.Contains(goodDecision, old) {
		panic("decisionWith: " + old)
	}
	return strings.Replace(goodDecision, old, new, 1)
}

// TestRejections pins the report of every rejection reason: each case is
// a valid record on line 1, a blank line, and the bad record on line 3.
func TestRejections(t *testing.T) {
	tests := []struct {
		name string
		line string
		want string // the error after "t.jsonl:3: "
	}{
		{"not JSON", `hello`, `json: invalid character 'h' looking for beginning of value (byte 1)`},
		{"truncated", goodDecision[:40], `json: unexpected end of line: the JSON value is incomplete`},
		{"not an object", `[1,2]`, `json: want an object, got an array`},
		{"two values", goodDecision + ` {}`, `json: more than one JSON value on the line (byte 99)`},
		{"NaN", decisionWith(`-2]`, `NaN]`), `features[2]: NaN is not valid JSON: numbers must be finite`},
		{"Infinity", decisionWith(`"reward":1`, `"reward":-Infinity`), `reward: -Infinity is not valid JSON: numbers must be finite`},
		{"out of range", decisionWith(`"reward":1`, `"reward":1e999`), `reward: 1e999 is out of float64 range`},
		{"feature out of range", decisionWith(`-2]`, `1e999]`), `features[2]: 1e999 is out of float64 range`},
		{"feature over float32", decisionWith(`-2]`, `1e39]`), `features[2]: 1e+39 overflows float32 (features are trained as float32)`},
		{"null feature", decisionWith(`1,-2]`, `null,-2]`), `features[1]: want a number, got null`},
		{"string feature", decisionWith(`1,-2]`, `"1",-2]`), `features[1]: want a number, got a string`},
		{"missing kind", `{"group":"g"}`, `kind: missing`},
		{"unknown kind", decisionWith(`"decision"`, `"decisions"`), `kind: unknown kind "decisions" (want "episode" or "decision")`},
		{"unknown action", decisionWith(`"refine"`, `"argue"`), `action: unknown action "argue" (want persist, refine or concede)`},
		{"action as number", decisionWith(`"refine"`, `1`), `action: want a string, got the number 1`},
		{"unknown turn action", episodeWith(`"concede"`, `"yield"`), `rounds[1].turns[1].action: unknown action "yield" (want persist, refine or concede)`},
		{"wrong feature width", decisionWith(`[0.5,1,-2]`, `[0.5,1]`), `features: 2 values, want 3 (the feature width of this data set)`},
		{"no features", decisionWith(`[0.5,1,-2]`, `[]`), `features: empty, want at least one value`},
		{"decision logprob > 0", decisionWith(`-0.5`, `0.5`), `logprob: 0.5 > 0: a log-probability is ≤ 0 (probability outside [0,1])`},
		{"missing reward", decisionWith(`,"reward":1`, ``), `reward: missing`},
		{"empty group", decisionWith(`"g"`, `""`), `group: empty`},
		{"episode field in decision", decisionWith(`"group"`, `"agents":2,"group"`), `agents: not a field of a decision record`},
		{"decision field in episode", episodeWith(`"agents"`, `"reward":1,"agents"`), `reward: not a field of an episode record`},
		{"unknown field", episodeWith(`"tokens":100`, `"tokens":100,"tokenz":1`), `rounds[0].turns[0].tokenz: unknown field`},
		{"unknown root field", decisionWith(`"group"`, `"grup":"x","group"`), `grup: unknown field`},
		{"wrong type", episodeWith(`"agents":2`, `"agents":"2"`), `agents: want an integer, got a string`},
		{"fraction for integer", episodeWith(`"tokens":100`, `"tokens":1.5`), `rounds[0].turns[0].tokens: 1.5 is not an integer`},
		{"confidence above 1", episodeWith(`0.8`, `1.5`), `rounds[0].turns[0].confidence: 1.5 outside [0,1]`},
		{"self confidence below 0", episodeWith(`"steps":3`, `"steps":3,"self_confidence":-0.1`), `rounds[0].turns[0].profile.self_confidence: -0.1 outside [0,1]`},
		{"turn logprob > 0", episodeWith(`-0.1`, `0.1`), `rounds[1].turns[0].logprob: 0.1 > 0: a log-probability is ≤ 0 (probability outside [0,1])`},
		{"negative tokens", episodeWith(`"tokens":90`, `"tokens":-1`), `rounds[0].turns[1].tokens: -1, want ≥ 0`},
		{"agent count changes", episodeWith(`,{"action":"concede","answer":"4","profile":{},"tokens":20}`, ``), `rounds[1].turns: 1 turns, want 2 (agents)`},
		{"one agent", episodeWith(`"agents":2`, `"agents":1`), `agents: 1, want at least 2`},
		{"action in round 0", episodeWith(`{"answer":"5"`, `{"action":"refine","answer":"5"`), `rounds[0].turns[1].action: present in round 0 (agents answer on their own there)`},
		{"no action after round 0", episodeWith(`"action":"concede",`, ``), `rounds[1].turns[1].action: missing (every turn of round ≥ 1 has an action)`},
		{"missing answer", episodeWith(`"answer":"5",`, ``), `rounds[0].turns[1].answer: missing`},
		{"missing rounds", `{"kind":"episode","id":"e","task":"t","agents":2}`, `rounds: missing`},
		{"bad escape", decisionWith(`"g"`, `"\q"`), `group: invalid character 'q' in string escape code (byte 30)`},
		{"missing value", decisionWith(`"g"`, ``), `group: invalid character ',' looking for beginning of value (byte 28)`},
		{"empty id", episodeWith(`"e1"`, `""`), `id: empty`},
		{"no rounds", `{"kind":"episode","id":"e","task":"t","agents":2,"rounds":[]}`, `rounds: empty, want round 0 at least`},
		{"duplicate key", episodeWith(`"gold":"4"`, `"gold":"4","gold":"5"`), `gold: duplicate key: the object has it twice; which value wins is up to the reader`},
		{"duplicate key, other case", episodeWith(`"tokens":90`, `"tokens":90,"Tokens":1`), `rounds[0].turns[1].Tokens: duplicate key: the object has it twice (as "tokens" and "Tokens": names match regardless of case); which value wins is up to the reader`},
		{"duplicate decision key", decisionWith(`"reward":1`, `"reward":1,"reward":2`), `reward: duplicate key: the object has it twice; which value wins is up to the reader`},
		{"invalid UTF-8 answer", episodeWith(`"answer":"5"`, "\"answer\":\"560\xff\""), `rounds[0].turns[1].answer: invalid UTF-8 (byte 164 of the line is 0xff): text must be UTF-8, or bytes that differ would read alike`},
		{"invalid UTF-8 group", decisionWith(`"g"`, "\"g\xfe\""), `group: invalid UTF-8 (byte 30 of the line is 0xfe): text must be UTF-8, or bytes that differ would read alike`},
		// Issue 34, cause 4: escaped lone surrogates read as U+FFFD, so two
		// different answers agreed.
		{"lone high surrogate answer", episodeWith(`"answer":"5"`, `"answer":"\ud800"`), `rounds[0].turns[1].answer: a lone UTF-16 surrogate \ud800 (byte 161 of the line): not a character, and texts that differ would read alike`},
		{"lone low surrogate group", decisionWith(`"g"`, `"g\udfff"`), `group: a lone UTF-16 surrogate \udfff (byte 30 of the line): not a character, and texts that differ would read alike`},
		{"line too long", `{"kind":"decision","group":"` + strings.Repeat("x", 300) + `"}`, `line: 330 bytes, over the limit of 256 (MaxLineBytes)`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			first := goodDecision
			if strings.Contains(tc.line, `"episode"`) {
				first = goodEpisode
			}
			path := writeFile(t, t.TempDir(), "t.jsonl", first+"\n\n"+tc.line+"\n"+first+"\n")
			limit := 4096
			if strings.HasPrefix(tc.name, "line") {
				limit = 256
			}
			r, err := Open([]string{path}, ReaderOptions{MaxLineBytes: limit})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			if _, err := r.Next(); err != nil {
				t.Fatalf("line 1: %v", err)
			}
			_, err = r.Next()
			var re *RecordError
			if !errors.As(err, &re) {
				t.Fatalf("line 3: error %v, want a *RecordError", err)
			}
			if got, want := err.Error(), path+":3: "+tc.want; got != want {
				t.Errorf("got  %s\nwant %s", got, want)
			}
			if re.File != path || re.Line != 3 {
				t.Errorf("position %s:%d, want %s:3", re.File, re.Line, path)
			}
			// Without Skip the caller may read on: line 4 is accepted.
			rec, err := r.Next()
			if err != nil || rec.Pos.Line != 4 {
				t.Errorf("after the rejection: %+v, %v; want line 4 accepted", rec.Pos, err)
			}
			if c := r.Counts(); c.Read != 3 || c.Accepted != 2 || c.Rejected != 1 {
				t.Errorf("counts %+v, want read 3, accepted 2, rejected 1", c)
			}
		})
	}
}
