package study

import (
	"fmt"

	"github.com/mpdf/mpdf/env"
)

// VerdictLine is one line of the study's verdict (design §9.1, env.Judge):
// one learned policy against the fixed protocols at the price λ it was
// trained with, or (Lambda nil) every learned policy and protocol pooled
// at the first λ of the study. Line is what mpdf study prints.
type VerdictLine struct {
	Policy string   `json:"policy"` // the learned policy, or "all λ" pooled
	Lambda *float64 `json:"lambda,omitempty"`
	Use    string   `json:"use"`
	Line   string   `json:"line"`
}

// verdicts judges the study's learned policies on all its rows (every
// task × seed of the test sides, paired by task id): one line per λ, then
// the pooled one. A study without a fixed protocol among its baselines
// has none.
func (s *Study) verdicts() ([]VerdictLine, error) {
	rs := s.results()
	play := env.PlaySampled
	if s.Config.Greedy {
		play = env.PlayGreedy
	}
	// Threshold is judged when the study played it: the rule keeps the
	// first of two equal rows, so where it plays as debate it is dominated.
	o := env.JudgeOptions{Confidence: true, Play: play}
	var out []VerdictLine
	for i, name := range s.Learned {
		l := s.Config.Lambdas[i]
		o.Lambda = l
		v, err := env.Judge(rs, name, o)
		if err != nil {
			return nil, fmt.Errorf("study: verdict on %s: %w", name, err)
		}
		out = append(out, VerdictLine{Policy: name, Lambda: &l, Use: v.Use, Line: fmt.Sprintf("%s, played %s — %s", name, play, v.Line())})
	}
	if len(s.Learned) > 1 {
		o.Lambda = s.Config.Lambdas[0]
		v, err := env.JudgeAll(rs, s.Learned, o)
		if err != nil {
			return nil, fmt.Errorf("study: pooled verdict: %w", err)
		}
		out = append(out, VerdictLine{Policy: "all λ", Use: v.Use, Line: fmt.Sprintf("all λ pooled, played %s — %s", play, v.Line())})
	}
	return out, nil
}

// hasVerdictBaseline says whether the study played a fixed protocol the
// verdict judges against.
func (s *Study) hasVerdictBaseline() bool {
	for _, b := range env.VerdictBaselines() {
		for _, f := range s.Fixed {
			if f == b {
				return true
			}
		}
	}
	return false
}

// results pools the rows into one env.Result per baseline and learned
// policy (the oracle is a ceiling, not a row to use), each question's rows
// over seeds and files together, in the order of the rows.
func (s *Study) results() env.Results {
	names := append(append([]string(nil), s.Fixed...), s.Learned...)
	at := make(map[string]int, len(names))
	rs := make(env.Results, len(names))
	tasks := make([]map[string]int, len(names))
	for i, n := range names {
		at[n], rs[i].Policy, tasks[i] = i, n, map[string]int{}
	}
	var tokens = make([]int64, len(names))
	for _, r := range s.Rows {
		i, ok := at[r.Policy]
		if !ok {
			continue
		}
		// Paired and resampled by question (TaskInfo.Unit), as the
		// report's differences are.
		q := r.Task
		if r.Index >= 0 && r.Index < len(s.Tasks) {
			q = s.Tasks[r.Index].Unit
		}
		res := &rs[i]
		k, ok := tasks[i][q]
		if !ok {
			k = len(res.ByTask)
			tasks[i][q] = k
			res.ByTask = append(res.ByTask, env.TaskOutcome{Task: q})
		}
		t := &res.ByTask[k]
		t.Episodes += r.Episodes
		t.Scored += r.Scored
		t.Correct += r.Correct
		t.Tokens += r.Tokens
		res.Episodes += r.Episodes
		res.Scored += r.Scored
		res.Correct += r.Correct
		tokens[i] += r.Tokens
	}
	for i := range rs {
		r := &rs[i]
		r.Tasks = len(r.ByTask)
		if r.Scored > 0 {
			r.Accuracy = float64(r.Correct) / float64(r.Scored)
		}
		if r.Episodes > 0 {
			r.TokensPerTask = float64(tokens[i]) / float64(r.Episodes)
		}
	}
	return rs
}

// isCrossValidation says s is a study's cross-validation (one learned
// policy per λ, named by it), not an ablation's merge of settings.
func (s *Study) isCrossValidation() bool {
	if len(s.Learned) == 0 || len(s.Learned) != len(s.Config.Lambdas) {
		return false
	}
	for i, l := range s.Config.Lambdas {
		if s.Learned[i] != LearnedName(l) {
			return false
		}
	}
	return true
}
