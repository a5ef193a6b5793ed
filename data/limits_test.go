package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// lineWithText is an episode line whose turn 0 of round 0 has text.
func lineWithText(t *testing.T, text string) string {
	t.Helper()
	ep := episodeOf("1", [][]string{{"1", "2"}}, nil)
	ep.Rounds[0].Turns[0].Text = text
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ep); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func readOne(line string) error {
	r := NewReader(strings.NewReader(line), "cap.jsonl", ReaderOptions{})
	_, err := r.Next()
	return err
}

// A text over MaxTextBytes is refused with its path, line and the limit;
// one at the limit passes, also when its escapes make it longer as written
// (the limit is on the text, as the Writer counts it).
func TestReaderCapsTexts(t *testing.T) {
	if err := readOne(lineWithText(t, strings.Repeat("a", MaxTextBytes))); err != nil {
		t.Fatalf("a text at the limit: %v", err)
	}
	if err := readOne(lineWithText(t, strings.Repeat("\n", MaxTextBytes))); err != nil {
		t.Fatalf("a text at the limit, written with escapes: %v", err)
	}
	err := readOne(lineWithText(t, strings.Repeat("a", MaxTextBytes+1)))
	var re *RecordError
	if !errors.As(err, &re) || re.Field != "rounds[0].turns[0].text" || re.Line != 1 ||
		!strings.Contains(re.Reason, "4194304") || !strings.Contains(err.Error(), "cap.jsonl:1") {
		t.Fatalf("a text over the limit: %v, want it refused naming the field, line and limit", err)
	}
	// A decision's group, which the fast path reads, too.
	group := `{"kind":"decision","group":"` + strings.Repeat("g", MaxTextBytes+1) + `","features":[1],"action":"refine","reward":1}` + "\n"
	if err := readOne(group); !errors.As(err, &re) || re.Field != "group" {
		t.Fatalf("a group over the limit: %v", err)
	}
	// The Writer refuses what the Reader would.
	ep := episodeOf("1", [][]string{{"1", "2"}}, nil)
	ep.Question = strings.Repeat("q", MaxTextBytes+1)
	if err := NewWriter(&bytes.Buffer{}).WriteEpisode(ep); err == nil || !strings.Contains(err.Error(), "question") {
		t.Fatalf("Writer: %v, want the question refused", err)
	}
}

func TestDecodedLen(t *testing.T) {
	for _, s := range []string{`abc`, `a\nb`, `\u00e9\u4e16`, `\ud83d\ude00x`, `\ud83dx`, `\\\"\/`, `\ude00\ud83d`, `ünï`} {
		var v string
		if err := json.Unmarshal([]byte(`"`+s+`"`), &v); err != nil {
			t.Fatal(err)
		}
		if got := decodedLen([]byte(s)); got != len(v) {
			t.Errorf("decodedLen(%s) = %d, want %d", s, got, len(v))
		}
	}
}
