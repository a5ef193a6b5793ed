package metapolicy

import (
	"math"
	"testing"
)

func TestTeamAnswer(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name    string
		answers []string
		conf    []float64
		exclude int
		want    string
	}{
		{"plurality", []string{"a", "b", "b"}, nil, -1, "b"},
		{"tie broken by summed confidence", []string{"a", "b"}, []float64{0.4, 0.9}, -1, "b"},
		{"tie of confidence goes to lowest index", []string{"b", "a"}, []float64{0.5, 0.5}, -1, "b"},
		{"missing confidence counts as zero", []string{"a", "b"}, []float64{nan, 0.1}, -1, "b"},
		{"without agent 2", []string{"a", "b", "b"}, nil, 2, "a"},
		{"without agent 0 leaves a tie to confidence", []string{"a", "b", "c"}, []float64{1, 0.2, 0.3}, 0, "c"},
		{"empty answers do not vote", []string{"", "", "x"}, nil, -1, "x"},
		{"no votes", []string{"", ""}, nil, -1, ""},
		{"votes beat confidence", []string{"a", "b", "b"}, []float64{1, 0.1, 0.1}, -1, "b"},
	} {
		if got := TeamAnswer(c.answers, c.conf, c.exclude); got != c.want {
			t.Errorf("%s: TeamAnswer(%q, %v, %d) = %q, want %q", c.name, c.answers, c.conf, c.exclude, got, c.want)
		}
	}
}

func TestConcedeTarget(t *testing.T) {
	for _, c := range []struct {
		name    string
		answers []string
		conf    []float64
		self    int
		want    string
	}{
		{"summed confidence beats votes", []string{"x", "a", "a", "b"}, []float64{1, 0.3, 0.3, 0.9}, 0, "b"},
		{"own answer is not counted", []string{"b", "a", "b"}, []float64{1, 0.6, 0.5}, 0, "a"},
		{"confidence tie goes to plurality", []string{"x", "a", "a", "b"}, []float64{0, 0.25, 0.25, 0.5}, 0, "a"},
		{"full tie goes to lowest index", []string{"x", "b", "a"}, []float64{0, 0.5, 0.5}, 0, "b"},
		{"all missing: plurality", []string{"x", "b", "a", "a"}, nil, 0, "a"},
		{"no peer answer", []string{"x", ""}, nil, 0, ""},
	} {
		if got := ConcedeTarget(c.answers, c.conf, c.self); got != c.want {
			t.Errorf("%s: ConcedeTarget(%q, %v, %d) = %q, want %q", c.name, c.answers, c.conf, c.self, got, c.want)
		}
	}
}
