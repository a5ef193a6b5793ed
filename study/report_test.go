package study

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/stats"
)

// TestReportLevelAndUnscored: the report prints the configured interval
// level (it said 95% whatever Bootstrap.Level was), and Unscored counts a
// row without gold once, not again for the oracle's copy of it.
func TestReportLevelAndUnscored(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Bootstrap = stats.Bootstrap{Resamples: 200, Level: 0.9, Seed: 1}
	var rows []ResultRow
	for task := range 4 {
		scored, correct := 1, task%2
		if task == 3 {
			scored, correct = 0, 0 // no gold
		}
		for _, p := range []string{"persist", "debate", LearnedName(0)} {
			rows = append(rows, ResultRow{Seed: 1, Task: string(rune('a' + task)), Index: task, Policy: p,
				Episodes: 1, Scored: scored, Correct: correct, Tokens: 10})
		}
	}
	rows = append(rows, Oracle(rows, []string{"persist", "debate"})...)
	s := &Study{Config: cfg, Env: "test", Rounds: 2, Rows: rows,
		Learned: []string{LearnedName(0)}, Fixed: []string{"persist", "debate"}}
	for task := range 4 {
		s.Tasks = append(s.Tasks, TaskInfo{Unit: string(rune('a' + task))})
	}
	sum, err := s.Summarise()
	if err != nil {
		t.Fatal(err)
	}
	if sum.Unscored != 3 { // task 3 for persist, debate and the learned policy
		t.Errorf("Unscored = %d, want 3 (the oracle's copy not counted)", sum.Unscored)
	}
	var b strings.Builder
	if err := sum.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	if strings.Contains(md, "95%") || strings.Count(md, "| 90% CI |") != 2 || !strings.Contains(md, "- intervals: 90% percentile") {
		t.Errorf("report at level 0.9 does not say 90%% everywhere:\n%s", md)
	}
	if got := Percent(0.975); got != "97.5%" {
		t.Errorf("Percent(0.975) = %q", got)
	}
}
