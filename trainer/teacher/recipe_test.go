package teacher

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// The replay recipe's labels are this package's pivotal teacher over gate.
func TestReplayRecipeLabelsArePivotalOverGate(t *testing.T) {
	spec, err := parseLabels(trainer.ReplayLabels)
	if err != nil || !spec.pivotal || spec.over == nil || spec.over.Name() != metapolicy.HeuristicGate {
		t.Errorf("trainer.ReplayLabels %q (%v): want %s:%s", trainer.ReplayLabels, err, PivotalName, metapolicy.HeuristicGate)
	}
}

func TestFallbackSaysWhatTheTeacherCannotLabel(t *testing.T) {
	rep, _ := trainer.DefaultRecipe(trainer.RecipeReplay)
	cfg := rep.Train
	cfg.RL.Rounds = 2
	// Every question labelable: unchanged, no note.
	got, note, err := Fallback(handBuilt(t), cfg)
	if err != nil || note != "" || got.SFT != cfg.SFT {
		t.Fatalf("hand-built: %+v, %q, %v: want the config unchanged and no note", got.SFT, note, err)
	}
	noGold := transcript.Question{ID: "n", File: "h.json", Task: answer.GSM8K, Text: "n",
		Agents: [][]transcript.Answer{{ans("1", 1), ans("2", 1)}, {ans("2", 1), ans("2", 1)}}}
	mixed, err := replay.New([]transcript.Question{*handBuilt(t).Question(0), noGold})
	if err != nil {
		t.Fatal(err)
	}
	got, note, err = Fallback(mixed, cfg)
	if err != nil || got.SFT != cfg.SFT || !strings.Contains(note, "labels 1 of the 2 training questions (1 have no gold answer") {
		t.Fatalf("mixed: %+v, %q, %v: want the config unchanged and a note counting 1 of 2", got.SFT, note, err)
	}
	none, err := replay.New([]transcript.Question{noGold})
	if err != nil {
		t.Fatal(err)
	}
	got, note, err = Fallback(none, cfg)
	if err != nil || got.SFT.Epochs != 0 || !strings.Contains(note, "supervised stage skipped") || !strings.Contains(note, "gold answer") {
		t.Fatalf("no gold: %+v, %q, %v: want the supervised stage skipped, and said", got.SFT, note, err)
	}
	// A heuristic teacher is left alone.
	cfg.SFT.Labels = "gate"
	if got, note, _ = Fallback(none, cfg); note != "" || got.SFT != cfg.SFT {
		t.Fatalf("heuristic teacher: %+v, %q: want unchanged", got.SFT, note)
	}
}
