package data

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestStats(t *testing.T) {
	dir := t.TempDir()
	// Episode 1: round 0 team "3" wrong, final "4" right. Agent 0 turns
	// right (local +1) and is pivotal (without it the 1–1 tie goes to
	// agent 1's "3"): rewards {2, 0, 0}.
	e1 := episodeOf("4", [][]string{{"3", "3", "4"}, {"4", "3", "4"}}, nil)
	e1.Rounds[1].Turns[1].Tokens = 250
	// Episode 2: two agents, two rounds, right all along: rewards 0.
	e2 := episodeOf("7", [][]string{{"7", "7"}, {"7", "7"}, {"7", "7"}}, nil)
	e2.ID, e2.Task = "ep2", "other"
	// Episode 3: no gold.
	e3 := episodeOf("", [][]string{{"1", "2"}, {"1", "1"}}, nil)
	e3.ID = "ep3"
	w, _ := Create(filepath.Join(dir, "s.jsonl"))
	for _, ep := range []*Episode{e1, e2, e3} {
		if err := w.WriteEpisode(ep); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	writeFile(t, dir, "bad.jsonl", "nope\n")
	r, _ := Open([]string{filepath.Join(dir, "*.jsonl")}, ReaderOptions{Skip: true})
	s, err := CollectStats(r, RewardConfig{})
	if err != nil {
		t.Fatal(err)
	}
	c := s.Counts
	if c.Read != 4 || c.Accepted != 3 || c.Rejected != 1 || c.Episodes != 3 {
		t.Errorf("counts %+v", c)
	}
	if s.Agents[3] != 1 || s.Agents[2] != 2 || s.Rounds[1] != 2 || s.Rounds[2] != 1 || s.NoGold != 1 {
		t.Errorf("agents %v rounds %v no gold %d", s.Agents, s.Rounds, s.NoGold)
	}
	if s.TeamCorrectInitial != 1 || s.TeamCorrectFinal != 2 || s.Tokens != 250 {
		t.Errorf("team correct %d → %d, tokens %d; want 1 → 2, 250", s.TeamCorrectInitial, s.TeamCorrectFinal, s.Tokens)
	}
	// Decisions: e1 3 (refine), e2 4 (refine); e3 has no gold.
	if s.Decisions != 7 || s.Actions["refine"] != 7 || s.Groups != 2 || s.FeatureWidth != 26 {
		t.Errorf("decisions %d actions %v groups %d width %d", s.Decisions, s.Actions, s.Groups, s.FeatureWidth)
	}
	// Rewards {2,0,0,0,0,0,0}: mean 2/7, population std sqrt(4/7 − 4/49).
	mean, std := 2.0/7, math.Sqrt(4.0/7-4.0/49)
	if rw := s.Reward; rw.N != 7 || math.Abs(rw.Mean-mean) > 1e-15 || math.Abs(rw.Std-std) > 1e-15 || rw.Min != 0 || rw.Max != 2 {
		t.Errorf("reward %+v, want mean %v std %v min 0 max 2", rw, mean, std)
	}
	var out bytes.Buffer
	if err := s.WriteText(&out); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"read 4, accepted 3, rejected 1", "team size", "2: 2, 3: 1", "episodes without gold  1",
		"round 0 0.500, final 1.000 (2 episodes with gold)", "7 in 2 groups, feature width 26",
		"persist 0 (0.0%), refine 7 (100.0%), concede 0 (0.0%)", "mean 0.2857, std 0.6999, min 0, max 2 (n 7)",
		"(n 7)\n1 records were rejected and skipped: mpdf data validate lists them\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("stats table lacks %q:\n%s", want, out.String())
		}
	}
	b, err := json.Marshal(s)
	if err != nil || !strings.Contains(string(b), `"agents":{"2":2,"3":1}`) {
		t.Errorf("JSON %s, %v", b, err)
	}
}
