package metapolicy

import (
	"slices"
	"strings"
	"testing"
)

func obsWith(answers []string, round int, history [][]string) *Observation {
	o := &Observation{Self: 0, Round: round, Rounds: 3, History: history}
	for _, a := range answers {
		o.Agents = append(o.Agents, AgentState{Answer: a, Confidence: Missing,
			Profile: Profile{SelfConfidence: Missing}})
	}
	return o
}

func TestObservationHistory(t *testing.T) {
	o := obsWith([]string{"4", "5"}, 2, [][]string{{"3", "5"}, {"4", "5"}})
	if err := o.Check(); err != nil {
		t.Fatal(err)
	}
	if got := o.Answers(0); !slices.Equal(got, []string{"3", "5"}) {
		t.Errorf("Answers(0) = %q", got)
	}
	if o.Answers(2) != nil || o.Answers(-1) != nil {
		t.Error("Answers outside the past is not nil")
	}
	// Without history only the previous round is known, from the states.
	bare := obsWith([]string{"4", "5"}, 2, nil)
	if got := bare.Answers(1); !slices.Equal(got, []string{"4", "5"}) {
		t.Errorf("Answers(1) without history = %q", got)
	}
	if bare.Answers(0) != nil {
		t.Error("Answers(0) without history is not nil")
	}
	for name, c := range map[string]struct {
		h    [][]string
		want string
	}{
		"short":    {[][]string{{"4", "5"}}, "history of 1 rounds"},
		"narrow":   {[][]string{{"3"}, {"4", "5"}}, "round 0 has 1 answers"},
		"mismatch": {[][]string{{"3", "5"}, {"4", "6"}}, "state says"},
	} {
		err := obsWith([]string{"4", "5"}, 2, c.h).Check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want one containing %q", name, err, c.want)
		}
	}
}

func TestUnanimous(t *testing.T) {
	for _, c := range []struct {
		a    []string
		want bool
	}{
		{[]string{"1", "1", "1"}, true},
		{[]string{"1", "1", "2"}, false},
		{[]string{"", ""}, false},
		{[]string{"1", ""}, false},
		{nil, false},
	} {
		if got := Unanimous(c.a); got != c.want {
			t.Errorf("Unanimous(%q) = %v", c.a, got)
		}
	}
}
