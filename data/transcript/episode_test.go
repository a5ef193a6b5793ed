package transcript

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

func TestToEpisode(t *testing.T) {
	f, err := ReadFile(filepath.Join("testdata", "gsm_TinyModel_agents2_rounds3.json"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	q := &f.Questions[1]
	ep := ToEpisode(q, EpisodeOptions{})
	if ep.Kind != "episode" || ep.Task != q.ID || ep.Gold != "-5" || ep.Policy != DebatePolicy || ep.Agents != 2 ||
		ep.ID != "gsm_TinyModel_agents2_rounds3#1" || ep.Source != "llm-debate:gsm_TinyModel_agents2_rounds3.json" {
		t.Errorf("episode header = %+v", ep)
	}
	if ep.Question != "" {
		t.Error("question text kept without EpisodeOptions.Text")
	}
	if len(ep.Rounds) != 3 {
		t.Fatalf("%d rounds, want 3", len(ep.Rounds))
	}
	for r, round := range ep.Rounds {
		if len(round.Turns) != 2 {
			t.Fatalf("round %d: %d turns", r, len(round.Turns))
		}
		for k, turn := range round.Turns {
			a := q.At(k, r)
			if turn.Answer != a.Answer || turn.Tokens != a.Tokens() || turn.Profile.Tokens != a.Profile.Tokens || turn.Text != "" {
				t.Errorf("round %d agent %d: turn %+v, recorded %+v", r, k, turn, a)
			}
			if turn.LogProb != nil || turn.Confidence != nil {
				t.Errorf("round %d agent %d: logprob or confidence present", r, k)
			}
			switch {
			case r == 0 && turn.Action != nil:
				t.Errorf("round 0 agent %d has an action", k)
			case r > 0 && (turn.Action == nil || *turn.Action != metapolicy.Refine):
				t.Errorf("round %d agent %d: action %v, want refine", r, k, turn.Action)
			}
		}
	}
	ep = ToEpisode(q, EpisodeOptions{Text: true})
	if ep.Question != q.Text || ep.Rounds[2].Turns[0].Text != q.At(0, 2).Text {
		t.Error("texts not kept with EpisodeOptions.Text")
	}
}

// TestToEpisodeCritic: EpisodeOptions.Critic sets each turn's confidence
// to the critic's of its answer, where it has one.
func TestToEpisodeCritic(t *testing.T) {
	doc := `{"q": [[
	  [{"role":"user","content":"q"},{"role":"assistant","content":"3 * 4 = 12. \\boxed{12}"},{"role":"user","content":"p"},{"role":"assistant","content":"3 * 4 = 13. \\boxed{13}"}],
	  [{"role":"user","content":"q"},{"role":"assistant","content":"\\boxed{12}"},{"role":"user","content":"p"},{"role":"assistant","content":"\\boxed{12}"}]
	], "#### 12"]}`
	var q Question
	if _, err := Each(strings.NewReader(doc), "gsm_x.json", Options{}, func(got *Question) error { q = *got; return nil }); err != nil {
		t.Fatal(err)
	}
	if c := q.Agents[0][0].Critic; c == nil || *c != 1 {
		t.Fatalf("Answer.Critic = %v, want 1", c)
	}
	if ep := ToEpisode(&q, EpisodeOptions{}); ep.Rounds[0].Turns[0].Confidence != nil {
		t.Error("confidence set without EpisodeOptions.Critic")
	}
	ep := ToEpisode(&q, EpisodeOptions{Critic: true})
	want := [2][2]float64{{1, -1}, {0, -1}} // -1: missing
	for r := range 2 {
		for k := range 2 {
			got := -1.0
			if c := ep.Rounds[r].Turns[k].Confidence; c != nil {
				got = *c
			}
			if got != want[r][k] {
				t.Errorf("round %d agent %d: confidence %v, want %v", r, k, got, want[r][k])
			}
		}
	}
}

// TestToEpisodeShortAgent: an agent that recorded fewer rounds keeps its
// last answer as persist, at no cost.
func TestToEpisodeShortAgent(t *testing.T) {
	doc := `{"q": [[[{"role":"assistant","content":"1"},{"role":"user","content":"again"},{"role":"assistant","content":"2"}],
	                [{"role":"assistant","content":"3"}]], "2"]}`
	var q Question
	if _, err := Each(strings.NewReader(doc), "gsm_x.json", Options{}, func(p *Question) error { q = *p; return nil }); err != nil {
		t.Fatal(err)
	}
	ep := ToEpisode(&q, EpisodeOptions{})
	if len(ep.Rounds) != 2 {
		t.Fatalf("%d rounds, want 2", len(ep.Rounds))
	}
	a, b := ep.Rounds[1].Turns[0], ep.Rounds[1].Turns[1]
	if a.Answer != "2" || *a.Action != metapolicy.Refine || a.Tokens == 0 {
		t.Errorf("recorded agent: %+v", a)
	}
	if b.Answer != "3" || *b.Action != metapolicy.Persist || b.Tokens != 0 {
		t.Errorf("short agent: %+v, want persist of 3 at no cost", b)
	}
}
