package run

import (
	"context"
	"errors"
	"testing"

	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/trainer"
)

// BaseOf starts a fresh run from its environment's recipe and a resumed
// one from its own config and setting; a directory with nothing to resume
// is ErrContinue.
func TestBaseOf(t *testing.T) {
	if replayPrefix != replay.SpecPrefix {
		t.Fatalf("replayPrefix %q, env/replay's %q", replayPrefix, replay.SpecPrefix)
	}
	none := func(string) bool { return false }
	b, err := BaseOf("", false, Setting{Env: "replay:x.json"}, none)
	want, _ := trainer.DefaultRecipe(trainer.RecipeReplay)
	if err != nil || b.Resume != nil || b.Recipe.Env != trainer.RecipeReplay || b.Config.SFT != want.Train.SFT {
		t.Errorf("fresh run on a replay: %+v, %v; want the replay recipe", b, err)
	}
	if b, _ := BaseOf("", false, Setting{Env: "replay:x.json", Data: []string{"d.jsonl"}}, none); b.Recipe.Env != trainer.RecipeSim {
		t.Errorf("offline: recipe %q, want sim's", b.Recipe.Env)
	}
	if _, err := BaseOf(t.TempDir(), true, Setting{}, none); !errors.Is(err, ErrContinue) {
		t.Errorf("resume of an empty directory: %v, want ErrContinue", err)
	}

	dir := t.TempDir()
	src := memRows()
	c := tinyConfig()
	c.Seed = 7
	if _, err := Train(context.Background(), Config{Train: c, Data: &src, Dir: dir, Keep: 2}, Hooks{}); err != nil {
		t.Fatal(err)
	}
	b, err = BaseOf(dir, true, Setting{Data: []string{"d.jsonl"}, Options: Options{Keep: 5}}, none)
	if err != nil || b.Resume == nil || b.Config.Seed != 7 || b.Setting.Keep != 2 || b.Recipe.Env != trainer.RecipeSim {
		t.Errorf("resume: %+v, %v; want the run's config (seed 7) and keep 2", b, err)
	}
}

// A base's run config carries the setting's options and the recipe's
// greedy judging (a replay's), nothing else of the setting.
func TestBaseRunConfig(t *testing.T) {
	o := Options{EvalTasks: 7, Keep: 2, BestMetric: "-loss", SkipInvalid: true, FeatureWidth: 30, MetricsEvery: MetricsEveryStep, EvalEvery: 3}
	b := Base{Setting: Setting{Env: "replay:x", Options: o}, Recipe: trainer.Recipe{Env: trainer.RecipeReplay, Greedy: true}}
	c := b.RunConfig(trainer.DefaultConfig(), "dir")
	got := Options{c.EvalTasks, c.Keep, c.BestMetric, c.SkipInvalid, c.FeatureWidth, c.MetricsEvery, c.EvalEvery}
	if got != o || c.Dir != "dir" || !c.Greedy || c.Resume != nil || c.EnvName != "" {
		t.Errorf("%+v", c)
	}
	b.Recipe.Env = trainer.RecipeSim
	if b.RunConfig(trainer.DefaultConfig(), "").Greedy {
		t.Error("greedy on the simulator's recipe")
	}
}
