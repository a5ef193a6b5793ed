package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
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

// A text over MaxTextBytes as written is refused with its line, byte and
// the limit, and the rest of the file is read on; one at the limit passes.
// The Writer refuses what the Reader would, naming the field.
func TestReaderCapsTexts(t *testing.T) {
	if err := readOne(lineWithText(t, strings.Repeat("a", MaxTextBytes))); err != nil {
		t.Fatalf("a text at the limit: %v", err)
	}
	if err := readOne(lineWithText(t, strings.Repeat("\n", MaxTextBytes/2))); err != nil {
		t.Fatalf("a text at the limit, written with escapes: %v", err)
	}
	for _, text := range []string{strings.Repeat("a", MaxTextBytes+1), strings.Repeat("\n", MaxTextBytes/2+1)} {
		line := lineWithText(t, text)
		at := strings.Index(line, `"text":"`) + len(`"text":`) + 1
		r := NewReader(strings.NewReader(line+lineWithText(t, "ok")), "cap.jsonl", ReaderOptions{Skip: true})
		rec, err := r.Next()
		if err != nil || rec.Episode == nil || r.Counts().Rejected != 1 {
			t.Fatalf("%v, %+v: want the long line rejected and the next read", err, r.Counts())
		}
		re := r.Errors()[0]
		if re.Field != "line" || re.Line != 1 || !strings.Contains(re.Reason, "4194304") ||
			!strings.Contains(re.Reason, fmt.Sprintf("byte %d ", at)) || !strings.Contains(re.Error(), "cap.jsonl:1") {
			t.Fatalf("a text over the limit: %v, want it refused naming the line, byte %d and the limit", re, at)
		}
		ep := episodeOf("1", [][]string{{"1", "2"}}, nil)
		ep.Rounds[0].Turns[1].Text = text
		var re2 *RecordError
		if err := NewWriter(&bytes.Buffer{}).WriteEpisode(ep); !errors.As(err, &re2) || re2.Field != "rounds[0].turns[1].text" {
			t.Fatalf("Writer: %v, want the text refused by its path", err)
		}
	}
	var re *RecordError
	// A decision's group, which the fast path reads, too.
	group := `{"kind":"decision","group":"` + strings.Repeat("g", MaxTextBytes+1) + `","features":[1],"action":"refine","reward":1}` + "\n"
	if err := readOne(group); !errors.As(err, &re) || !strings.Contains(re.Reason, "byte 28 ") {
		t.Fatalf("a group over the limit: %v", err)
	}
	if re := checkStrict([]byte(group)); re == nil || re.Field != "group" {
		t.Fatalf("checkStrict: %v, want the group named", re)
	}
	ep := episodeOf("1", [][]string{{"1", "2"}}, nil)
	ep.Question = strings.Repeat("q", MaxTextBytes+1)
	if err := NewWriter(&bytes.Buffer{}).WriteEpisode(ep); err == nil || !strings.Contains(err.Error(), "question") {
		t.Fatalf("Writer: %v, want the question refused", err)
	}
}
