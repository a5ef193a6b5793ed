package ablate

import (
	"os"
	"testing"

	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/study"
)

// The line a command prints names the files written and the count.
func TestWrittenLine(t *testing.T) {
	a := &Ablation{Kind: "tau", Rows: make([]AblationRow, 2)}
	if got, want := a.Wrote("d", 0), "study: ablation tau: 2 settings in 0s; wrote d/{ablation.md,ablation.json,results.json}"; got != want {
		t.Errorf("ablation: %q, want %q", got, want)
	}
}

// A study's bar starts at its jobs, an ablation's at 1, each with its
// label; a failed run gives no Written (not a nil pointer in one), and an
// unknown ablation leaves the directory empty.
func TestCrossValidateOrAblate(t *testing.T) {
	c := study.DefaultConfig()
	if total, label := Work(c, ""); total != c.Jobs() || label != "study (folds × seeds × policies)" {
		t.Errorf("study: %d %q", total, label)
	}
	if total, label := Work(c, "tau"); total != 1 || label != "ablation tau (settings × folds × seeds)" {
		t.Errorf("ablation: %d %q", total, label)
	}
	e := must(sim.New(sim.Config{Tasks: 20, Seed: 1}))
	for _, ablate := range []string{"", "no-such"} {
		dir := t.TempDir()
		d, err := study.OpenDir(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		bad := c
		bad.Folds = 1
		w, err := CrossValidateOrAblate(d, e, bad, ablate)
		d.Close()
		if err == nil || w != nil {
			t.Errorf("ablate %q, 1 fold: %v, %v; want an error and no Written", ablate, w, err)
		}
		if names, _ := os.ReadDir(dir); len(names) > 0 {
			t.Errorf("ablate %q: left %v in the directory", ablate, names)
		}
	}
}
