package run

import (
	"strings"

	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/trainer"
)

// Base is where a run's config starts, before a config file and the
// caller's own settings overlay it: a fresh run's recipe, or the config
// and setting of the run it resumes.
type Base struct {
	// Recipe is the recipe of the environment trained in
	// (trainer.DefaultRecipe of Setting.RecipeKind).
	Recipe trainer.Recipe
	// Config is the recipe's config, or the resumed run's own.
	Config trainer.Config
	// Resume is the checkpoint resumed from (Latest); nil for a fresh run.
	Resume *Resumable
	// RecipeSet are the settings a named recipe (Request.Recipe) set over
	// the config, for a line the caller prints; nil without one.
	RecipeSet []trainer.RecipeSetting
	// Setting is the one given, or on a resume the run's own except where
	// given anew (Resumable.Continue).
	Setting Setting
}

// BaseOf resolves where a run into dir begins: resumed, from the latest
// checkpoint there with the run's config and setting, except what given
// says was set anew (by key, as Continue takes them); else from the
// recipe of s's environment. Why the run cannot resume is ErrContinue.
func BaseOf(dir string, resume bool, s Setting, given func(name string) bool) (Base, error) {
	b := Base{Setting: s}
	if resume {
		rs, err := Latest(dir)
		if err != nil {
			return b, errmark.Mark(err, ErrContinue)
		}
		if b.Setting, err = rs.Continue(s, given); err != nil {
			return b, err
		}
		b.Resume = rs
	}
	var err error
	if b.Recipe, err = trainer.DefaultRecipe(b.Setting.RecipeKind()); err != nil {
		return b, err
	}
	b.Config = b.Recipe.Train
	if b.Resume != nil {
		b.Config = b.Resume.Config
	}
	return b, nil
}

// RunConfig is the run of b into dir with the training config c (b.Config
// with the caller's file and settings over it): resumed if b is, with b's
// setting's options, and judged greedy where the recipe is.
func (b Base) RunConfig(c trainer.Config, dir string) Config {
	o := b.Setting.Options
	return Config{Train: c, Dir: dir, Resume: b.Resume, Keep: o.Keep, BestMetric: o.BestMetric,
		EvalTasks: o.EvalTasks, SkipInvalid: o.SkipInvalid, FeatureWidth: o.FeatureWidth, MetricsEvery: o.MetricsEvery,
		EvalEvery: o.EvalEvery,
		Greedy:    b.Recipe.Env == trainer.RecipeReplay && b.Recipe.Greedy}
}

// replayPrefix starts the spec of a replay environment (env/replay's
// SpecPrefix, which a test holds it to).
const replayPrefix = "replay:"

// RecipeKind is the kind of environment s trains in, for its recipe:
// trainer.RecipeReplay online on a replay, else trainer.RecipeSim (the
// simulator, and offline data).
func (s Setting) RecipeKind() string {
	if len(s.Data) == 0 && strings.HasPrefix(s.Env, replayPrefix) {
		return trainer.RecipeReplay
	}
	return trainer.RecipeSim
}
