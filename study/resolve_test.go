package study

import (
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

// The line a command prints names the files written and the count
// (study/ablate and study/shards test theirs).
func TestWrittenLines(t *testing.T) {
	r := &Report{Study: &Study{Rows: make([]ResultRow, 3)}}
	if got, want := r.Wrote("out", 1500*time.Millisecond), "study: 3 rows in 2s; wrote out/{results.json,report.md,pareto.png,report.html}"; got != want {
		t.Errorf("report: %q, want %q", got, want)
	}
}
