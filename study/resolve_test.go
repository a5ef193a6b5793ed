package study

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// Resolve takes the teacher's trainer for labels it handles, and only
// for those; the supervised epochs follow (SFTEpochs).
func TestResolveTeacher(t *testing.T) {
	e := must(sim.New(sim.Config{Tasks: 20, Seed: 1}))
	called := 0
	teach := Teacher{
		Handles: func(labels string) bool { return labels == "hindsight" },
		Train:   func(env.Env, trainer.Config) (metapolicy.Policy, error) { called++; return nil, nil },
	}
	c := DefaultConfig()
	c.Train.SFT.Labels = "hindsight"
	got, err := Resolve(e, c, -1, RecipeGiven{}, teach)
	if err != nil {
		t.Fatal(err)
	}
	if got.Trainer == nil || got.Train.SFT.Epochs != DefaultSFTEpochs {
		t.Fatalf("hindsight: trainer set %v, epochs %d; want the teacher's, %d", got.Trainer != nil, got.Train.SFT.Epochs, DefaultSFTEpochs)
	}
	if _, _ = got.Trainer(e, got.Train); called != 1 {
		t.Errorf("the trainer is not the teacher's")
	}
	c.Train.SFT.Labels = "threshold"
	if got, err = Resolve(e, c, 2, RecipeGiven{}, teach); err != nil || got.Trainer != nil || got.Train.SFT.Epochs != 2 {
		t.Errorf("threshold: %v, trainer set %v, epochs %d; want the default trainer, 2 epochs", err, got.Trainer != nil, got.Train.SFT.Epochs)
	}
	c.Folds = 1
	if _, err = Resolve(e, c, -1, RecipeGiven{}, teach); err == nil {
		t.Error("1 fold: no error; Resolve must check the config")
	}
}

// The lines a command prints name the files written and the counts.
func TestWrittenLines(t *testing.T) {
	r := &Report{Study: &Study{Rows: make([]ResultRow, 3)}}
	if got, want := r.Wrote("out", 1500*time.Millisecond), "study: 3 rows in 2s; wrote out/{results.json,report.md,pareto.png,report.html}"; got != want {
		t.Errorf("report: %q, want %q", got, want)
	}
	a := &Ablation{Kind: "tau", Rows: make([]AblationRow, 2)}
	if got, want := a.Wrote("d", 0), "study: ablation tau: 2 settings in 0s; wrote d/{ablation.md,ablation.json,results.json}"; got != want {
		t.Errorf("ablation: %q, want %q", got, want)
	}
	var b bytes.Buffer
	s := &ShardRun{Record: &ShardRecord{Shard: 1, Shards: 4, Cells: 12}, Path: "d/shard.json", Kept: 1, Ran: 2, ShardCells: 3}
	if err := s.WriteText(&b); err != nil || !strings.HasPrefix(b.String(), "study shard 1/4: 3 of the study's 12 cells (kept 1, ran 2); wrote d/shard.json\n") {
		t.Errorf("shard: %q, %v", b.String(), err)
	}
}

// A study's bar starts at its jobs, an ablation's at 1, each with its
// label; a failed run gives no Written (not a nil pointer in one), and an
// unknown ablation leaves the directory empty.
func TestCrossValidateOrAblate(t *testing.T) {
	c := DefaultConfig()
	if total, label := c.Work(""); total != c.Jobs() || label != "study (folds × seeds × policies)" {
		t.Errorf("study: %d %q", total, label)
	}
	if total, label := c.Work("tau"); total != 1 || label != "ablation tau (settings × folds × seeds)" {
		t.Errorf("ablation: %d %q", total, label)
	}
	e := must(sim.New(sim.Config{Tasks: 20, Seed: 1}))
	for _, ablate := range []string{"", "no-such"} {
		dir := t.TempDir()
		d, err := OpenDir(dir, false)
		if err != nil {
			t.Fatal(err)
		}
		bad := c
		bad.Folds = 1
		w, err := d.CrossValidateOrAblate(e, bad, ablate)
		d.Close()
		if err == nil || w != nil {
			t.Errorf("ablate %q, 1 fold: %v, %v; want an error and no Written", ablate, w, err)
		}
		if names, _ := os.ReadDir(dir); len(names) > 0 {
			t.Errorf("ablate %q: left %v in the directory", ablate, names)
		}
	}
}
