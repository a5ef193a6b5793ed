package env

import (
	"fmt"
	"testing"

	"github.com/mpdf/mpdf/data"
)

// scoredEpisode is a two-agent, one-round episode of task whose team
// answer is right or wrong.
func scoredEpisode(task string, e int, right bool) *data.Episode {
	a := "1"
	if !right {
		a = "2"
	}
	turns := []data.Turn{{Answer: a, Tokens: 10}, {Answer: a, Tokens: 10}}
	return &data.Episode{Kind: data.KindEpisode, ID: fmt.Sprintf("%s/%d", task, e), Task: task,
		Gold: "1", Agents: 2, Rounds: []data.Round{{Turns: turns}}}
}

// The accuracy interval resamples tasks: forty episodes that are four
// identical copies of ten tasks carry the information of ten tasks, so
// the interval must be about as wide as that of ten independent episodes
// and much wider than Wilson's over forty.
func TestAccuracyIntervalClustersByTask(t *testing.T) {
	var copies, ten Tally
	for k := range 10 {
		task := fmt.Sprint("t", k)
		if err := ten.Add(scoredEpisode(task, 0, k%2 == 0)); err != nil {
			t.Fatal(err)
		}
		for e := range 4 {
			if err := copies.Add(scoredEpisode(task, e, k%2 == 0)); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, u := copies.Result(), ten.Result()
	if c.Accuracy != 0.5 || c.Episodes != 40 || c.Tasks != 10 {
		t.Fatalf("copies: %+v", c)
	}
	if c.CILow != u.CILow || c.CIHigh != u.CIHigh {
		t.Errorf("4 copies of 10 tasks: [%.3f, %.3f]; the 10 tasks once: [%.3f, %.3f]; want equal (the resampled tasks are the same)",
			c.CILow, c.CIHigh, u.CILow, u.CIHigh)
	}
	wlo, whi := Wilson(20, 40)
	if !(c.CIHigh-c.CILow > 1.5*(whi-wlo)) {
		t.Errorf("clustered width %.3f, Wilson over 40 episodes %.3f: want ≈ 2× wider", c.CIHigh-c.CILow, whi-wlo)
	}
	if !(c.CILow < 0.5 && c.CIHigh > 0.5) {
		t.Errorf("interval [%.3f, %.3f] misses the accuracy 0.5", c.CILow, c.CIHigh)
	}
}
