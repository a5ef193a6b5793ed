package signals

import (
	"math"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
)

func textAns(text string) transcript.Answer {
	r := answer.Read(answer.GSM8K, text, answer.Options{Critic: true}) // as the importer reads
	return transcript.Answer{Text: text, Answer: r.Answer, Profile: r.Profile, Critic: r.Critic}
}

// TestCriticCandidates: gold 12; agent 0 computes 3 * 4 = 12, agents 1
// and 2 slip to 13. The critic ranks the one correct agent first (AUC 1),
// as the confidence slot (v1.FConf) with replay.WithCritic and as the
// text candidate with the texts kept; without texts the text candidates
// are NaN, not a number about nothing.
func TestCriticCandidates(t *testing.T) {
	q := transcript.Question{
		ID: "gsm8k:q", File: "hand.json", Task: answer.GSM8K, Text: "q", Gold: "12",
		Agents: [][]transcript.Answer{
			{textAns(`3 * 4 = 12. \boxed{12}`), textAns(`3 * 4 = 12. \boxed{12}`)},
			{textAns(`3 * 4 = 13. \boxed{13}`), textAns(`3 * 4 = 12. \boxed{12}`)},
			{textAns(`3 * 4 = 13. \boxed{13}`), textAns(`3 * 4 = 13. \boxed{13}`)},
		},
	}
	pol, _ := metapolicy.NewHeuristic(metapolicy.HeuristicPersist)
	auc := func(rep *Report, name string) float64 {
		for _, r := range rep.Rows {
			if r.Feature == name {
				return r.AUC[TargetCorrect][SubsetAll]
			}
		}
		t.Fatalf("no candidate %s", name)
		return 0
	}
	for _, c := range []struct {
		opts         []replay.Option
		critic, conf float64 // AUCs for correct; NaN: undefined
	}{
		{nil, math.NaN(), 0.5},
		{[]replay.Option{replay.WithText(true)}, 1, 0.5},
		{[]replay.Option{replay.WithText(true), replay.WithCritic(true)}, 1, 1},
	} {
		e, err := replay.New([]transcript.Question{q}, c.opts...)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := Measure(e, pol, Options{Rounds: 1}, Candidates())
		if err != nil {
			t.Fatal(err)
		}
		for name, want := range map[string]float64{"critic": c.critic, "v1.FConf": c.conf} {
			if got := auc(rep, name); !(got == want || math.IsNaN(got) && math.IsNaN(want)) {
				t.Errorf("%d options: %s AUC for correct = %v, want %v", len(c.opts), name, got, want)
			}
		}
	}
}
