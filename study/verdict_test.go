package study

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
)

// A study's verdict: one line per λ (the policy judged at the price it
// trained with), then all λ pooled; report.md opens with them, and what
// mpdf study prints is those lines alone.
func TestStudyVerdict(t *testing.T) {
	s := &Study{Config: DefaultConfig(), Fixed: []string{"majority", "gate", "random"}}
	s.Config.Lambdas, s.Config.Greedy = []float64{0, 0.1}, true
	for _, l := range s.Config.Lambdas {
		s.Learned = append(s.Learned, LearnedName(l))
	}
	// 60 questions × 2 seeds: gate is right on 50, majority on 40; the λ=0
	// policy plays as gate does, the λ=0.1 one is right on 45 for 1,100
	// tokens.
	const n = 60
	for i := range n {
		s.Tasks = append(s.Tasks, TaskInfo{Unit: fmt.Sprint("q", i), Model: "m"})
	}
	right := map[string]int{"majority": 40, "gate": 50, "random": 30, LearnedName(0): 50, LearnedName(0.1): 45}
	tokens := map[string]int64{"majority": 1000, "gate": 3000, "random": 2000, LearnedName(0): 3000, LearnedName(0.1): 1100}
	for seed := uint64(1); seed <= 2; seed++ {
		for _, p := range append(append([]string(nil), s.Fixed...), s.Learned...) {
			for i := range n {
				c := 0
				if i < right[p] {
					c = 1
				}
				s.Rows = append(s.Rows, ResultRow{Seed: seed, Task: fmt.Sprint("t", i), Index: i, Model: "m", Policy: p,
					Episodes: 1, Scored: 1, Correct: c, Tokens: tokens[p]})
			}
		}
	}
	sum, err := s.Summarise()
	if err != nil {
		t.Fatal(err)
	}
	if len(sum.Verdicts) != 3 {
		t.Fatalf("verdicts %+v: want one per λ and the pooled one", sum.Verdicts)
	}
	want := []struct{ prefix, use, says string }{
		{"mpdf λ=0, played greedy — verdict (λ 0, accuracy alone): use gate: this policy plays as gate does", "gate", "it beats majority (gate − majority: +16.7 points ["},
		{"mpdf λ=0.1, played greedy — verdict (λ 0.1, 10 points per 1000 tokens): use ", "mpdf λ=0.1", "it beats majority (this policy − majority: +7.3 net points ["},
		{"all λ pooled, played greedy — verdict (λ 0, accuracy alone): use gate: ", "gate", "it beats mpdf λ=0.1 (gate − mpdf λ=0.1: +8.3 points ["},
	}
	for i, w := range want {
		v := sum.Verdicts[i]
		if !strings.HasPrefix(v.Line, w.prefix) || v.Use != w.use || !strings.Contains(v.Line, w.says) {
			t.Errorf("verdict %d: use %s: %s\nwant use %s, %q…, %q", i, v.Use, v.Line, w.use, w.prefix, w.says)
		}
	}
	var md, out strings.Builder
	if err := sum.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(md.String(), "# mpdf study\n\n## Verdict\n\n- "+sum.Verdicts[0].Line+"\n") {
		t.Errorf("report.md does not open with the verdict:\n%.400s", md.String())
	}
	r := &Report{Study: s, Summary: sum}
	if err := r.WriteOut(&out, false); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "\n"); got != 3 || strings.Contains(out.String(), "|") {
		t.Errorf("printed %d lines, want the 3 verdict lines alone:\n%s", got, out.String())
	}
}

// On transcripts without a confidence, the default baselines leave
// threshold out (it would refine on every turn: debate's row again), and
// the report says so; with the text critic it stays.
func TestStudyDropsThresholdWithoutConfidence(t *testing.T) {
	a := func(ans string) transcript.Answer {
		return transcript.Answer{Answer: ans, Profile: data.Profile{Tokens: 10}}
	}
	var qs []transcript.Question
	for i := range 4 {
		qs = append(qs, transcript.Question{ID: fmt.Sprint("q", i), File: "gsm_m_agents2_rounds2.json", Task: answer.GSM8K, Text: fmt.Sprint("q", i), Gold: "1",
			Agents: [][]transcript.Answer{{a("1"), a("1")}, {a("2"), a("1")}}})
	}
	e, err := replay.New(qs)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(e, Config{Folds: 2, Seeds: 1, Lambdas: []float64{0}})
	if err != nil {
		t.Fatal(err)
	}
	s := p.Study
	if slices.Contains(s.Fixed, metapolicy.HeuristicThreshold) || !slices.Contains(s.Fixed, metapolicy.HeuristicDebate) ||
		len(s.Notes) != 1 || !strings.Contains(s.Notes[0], "threshold left out") {
		t.Errorf("baselines %v, notes %q: want threshold left out and said", s.Fixed, s.Notes)
	}
	c, err := e.With(replay.WithCritic(true))
	if err != nil {
		t.Fatal(err)
	}
	if p, err = NewPlan(c, Config{Folds: 2, Seeds: 1, Lambdas: []float64{0}}); err != nil {
		t.Fatal(err)
	}
	s = p.Study
	if !slices.Contains(s.Fixed, metapolicy.HeuristicThreshold) || len(s.Notes) != 0 {
		t.Errorf("critic on: baselines %v, notes %q: want threshold kept", s.Fixed, s.Notes)
	}
}
