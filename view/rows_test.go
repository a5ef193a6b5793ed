package view_test

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/view"
)

// TestOpening: each row carries its question's opening words, spaces made
// one, cut at a word's end and marked when the question goes on; a short
// question whole.
func TestOpening(t *testing.T) {
	long := "Janet's  ducks\nlay 16 eggs per day. " + strings.Repeat("She eats three for breakfast every morning. ", 20)
	cjk := strings.Repeat("鸭", 300) // no spaces: cut on a character
	for _, c := range []struct{ question, want string }{
		{"How many\n\tlegs?", "How many legs?"},
		{"", ""},
	} {
		if got := openingOf(t, c.question); got != c.want {
			t.Errorf("opening of %q: %q, want %q", c.question, got, c.want)
		}
	}
	got := openingOf(t, long)
	if !strings.HasPrefix(got, "Janet's ducks lay 16 eggs per day. She eats") || !strings.HasSuffix(got, "…") ||
		len(got) > 200+len("…") || len(got) < 150 {
		t.Errorf("opening of a long question: %q (%d bytes)", got, len(got))
	}
	if body := strings.TrimSuffix(got, "…"); !strings.HasPrefix(strings.Join(strings.Fields(long), " "), body+" ") {
		t.Errorf("opening %q does not end at a word's end", got)
	}
	got = openingOf(t, cjk)
	if !utf8.ValidString(got) || !strings.HasSuffix(got, "…") || len(got) > 200+len("…") {
		t.Errorf("opening of a question without spaces: %q", got)
	}
}

func openingOf(t *testing.T, question string) string {
	t.Helper()
	ep := episode("e1", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, "a")
	ep.Question = question
	var page bytes.Buffer
	if err := view.Write(&page, view.Group([]*data.Episode{ep}), view.Options{}); err != nil {
		t.Fatal(err)
	}
	u, err := view.Unpack(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return u.Rows[0].Opening
}

// TestRuleFromFiles: episodes read from files whose every chosen action
// had probability 1 are a deterministic rule's (no p= on the page); a
// policy that drew an action with probability below 1 keeps its p=.
func TestRuleFromFiles(t *testing.T) {
	rule := episode("e1", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, "a")
	drawn := episode("e2", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, "a")
	drawn.Policy = "learned"
	for _, tu := range rule.Rounds[1].Turns {
		*tu.LogProb = 0 // p = 1
	}
	var page bytes.Buffer
	if err := view.Write(&page, view.Group([]*data.Episode{rule, drawn}), view.Options{}); err != nil {
		t.Fatal(err)
	}
	u, err := view.Unpack(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(u.Rule, []bool{true, false}) {
		t.Fatalf("rules %v of %v: want p's alone", u.Rule, u.Policies)
	}
	cols := u.Rows[0].Cols
	if turn := cols[0][0].Rounds[1].Turns[0]; len(turn) != 5 {
		t.Errorf("a deterministic rule's turn %v: want no probability", turn)
	}
	if turn := cols[1][0].Rounds[1].Turns[0]; len(turn) != 6 || math.Abs(turn[5].(float64)-0.25) > 1e-9 {
		t.Errorf("a drawn action's turn %v: want its p=0.25", turn)
	}
}
