package run

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// Plan puts the caller's config over the recipe's, refuses what cannot
// start the run (bad init weights, a feature width given online, rollouts
// of one behaviour unless allowed) with the setting marked, and checks
// offline data.
func TestRequestPlan(t *testing.T) {
	given := map[string]bool{}
	req := func() Request {
		return Request{Setting: Setting{Env: "sim"}, Given: func(k string) bool { return given[k] },
			Over: func(c trainer.Config) (trainer.Config, error) { c.Seed = 42; return c, nil }}
	}
	rc, b, err := req().Plan()
	if err != nil || rc.Train.Seed != 42 || b.Resume != nil || b.Recipe.Env != trainer.RecipeSim {
		t.Fatalf("fresh online run: %v, seed %d, recipe %q; want the config over the sim recipe", err, rc.Train.Seed, b.Recipe.Env)
	}
	// A Go caller may leave Given and Over nil: nothing given anew, the
	// recipe as it is.
	rc, b, err = Request{Setting: Setting{Env: "sim"}}.Plan()
	if err != nil || rc.Train.Seed != b.Recipe.Train.Seed || b.Recipe.Env != trainer.RecipeSim {
		t.Fatalf("Request with no Given or Over: %v, seed %d; want the sim recipe's %d", err, rc.Train.Seed, b.Recipe.Train.Seed)
	}
	r := req()
	r.Setting.Env = "replay:x.json"
	if _, b, err = r.Plan(); err != nil || b.Recipe.Env != trainer.RecipeReplay {
		t.Errorf("on a replay: %v, recipe %q; want the replay recipe", err, b.Recipe.Env)
	}
	r = req()
	r.Over = func(trainer.Config) (trainer.Config, error) { return trainer.Config{}, errors.New("bad file") }
	if _, _, err = r.Plan(); err == nil || err.Error() != "bad file" {
		t.Errorf("Over's error: %v", err)
	}
	r = req()
	r.Init = filepath.Join(t.TempDir(), "none.mpdf")
	if _, _, err = r.Plan(); !errors.Is(err, ErrInit) {
		t.Errorf("missing init weights: %v, want ErrInit", err)
	} else if key, _ := errmark.KeyOf(err); key != "init" {
		t.Errorf("init error keyed %q", key)
	}
	r = req()
	r.Setting.FeatureWidth = 30
	if _, _, err = r.Plan(); err != nil {
		t.Errorf("a width not given anew (a resumed setting's): %v", err)
	}
	given["feature_width"] = true
	if _, _, err = r.Plan(); !errors.Is(err, ErrOnlineWidth) {
		t.Errorf("a width given online: %v, want ErrOnlineWidth", err)
	}

	dir := t.TempDir()
	debate := filepath.Join(dir, "debate.jsonl")
	p, err := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	if err != nil {
		t.Fatal(err)
	}
	writeRollouts(t, debate, p, "")
	r = req()
	r.Setting.Data = []string{debate}
	if _, _, err = r.Plan(); !errors.Is(err, ErrSingleBehaviour) {
		t.Errorf("rollouts of one behaviour: %v, want ErrSingleBehaviour", err)
	}
	r.AllowSingleBehaviour = true
	if rc, _, err = r.Plan(); err != nil || rc.Data == nil || rc.DataID == nil {
		t.Errorf("allowed: %v, data set %v; want the data checked and used", err, rc.Data != nil)
	}
}

// Request.Recipe puts the paper's recipe over a fresh run's base, under
// Over (which wins), and reports what it set; an unknown name is refused,
// keyed "recipe"; a resumed run keeps its own config.
func TestRequestRecipePaper(t *testing.T) {
	given := map[string]bool{"gamma": true}
	r := Request{Setting: Setting{Env: "sim"}, Recipe: trainer.RecipePaper, Given: func(k string) bool { return given[k] },
		Over: func(c trainer.Config) (trainer.Config, error) { c.Reward.Gamma = 0.5; return c, c.Validate() }}
	rc, b, err := r.Plan()
	if err != nil {
		t.Fatal(err)
	}
	c := rc.Train
	if c.Agents() != metapolicy.AgentSlot || c.Arch != trainer.ArchAttention || !c.Loss.RankMatch() || c.Reward.Gamma != 0.5 {
		t.Errorf("planned config %+v: want the paper's recipe, γ as given", c)
	}
	if len(b.RecipeSet) != 5 {
		t.Errorf("set %v: want five settings (γ was given)", b.RecipeSet)
	}
	r.Recipe = "papers"
	if _, _, err := r.Plan(); !errors.Is(err, ErrRecipe) {
		t.Errorf("recipe papers: %v, want ErrRecipe", err)
	} else if key, _ := errmark.KeyOf(err); key != "recipe" {
		t.Errorf("recipe error keyed %q", key)
	}

	// A run trained without the recipe, resumed with it: its own config.
	dir := t.TempDir()
	cfg := simConfig(t)
	cfg.Dir = dir
	if _, err := Train(context.Background(), cfg, Hooks{}); err != nil {
		t.Fatal(err)
	}
	r = Request{Dir: dir, Resume: true, Setting: Setting{Env: "sim"}, Recipe: trainer.RecipePaper}
	rc, b, err = r.Plan()
	if err != nil || b.Resume == nil {
		t.Fatalf("resume: %v", err)
	}
	if rc.Train.AgentPolicy != "" || rc.Train.Arch != "" || b.RecipeSet != nil {
		t.Errorf("a resumed run took the recipe: %+v, set %v", rc.Train, b.RecipeSet)
	}
}
