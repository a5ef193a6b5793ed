package study

import (
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
)

// A Teacher is a Trainer for the supervised labels it handles (hindsight
// and pivotal: trainer/teacher's Handles and Train). The caller supplies
// it: a study runs any Trainer, and this package does not import one.
type Teacher struct {
	Handles func(labels string) bool
	Train   Trainer
	// Run is the same teacher as a run.Teacher (teacher.RunTeacher), for
	// ablate.RunStability; nil leaves Config.RunTeacher unset.
	Run func(trainer.Config) (*run.Teacher, error)
}

// Resolve completes cfg for a study on e as mpdf study does, then checks
// it (Check): on a replay the transcript recipe where given does not say
// (WithReplayRecipe); t's Train as the Trainer when t handles the labels;
// the supervised epochs (SFTEpochs of sftEpochs, < 0 when not given).
func Resolve(e env.Env, cfg Config, sftEpochs int, given RecipeGiven, t Teacher) (Config, error) {
	_, isReplay := e.(*replay.Env)
	if isReplay {
		var err error
		if cfg, sftEpochs, err = WithReplayRecipe(cfg, sftEpochs, given); err != nil {
			return cfg, err
		}
	}
	answers := t.Handles != nil && t.Handles(cfg.Train.SFT.Labels)
	if answers {
		cfg.Trainer, cfg.RunTeacher = t.Train, t.Run
	}
	cfg.Train.SFT.Epochs = SFTEpochs(sftEpochs, answers, isReplay)
	return cfg, Check(e, cfg)
}

// WithRecipe puts the named recipe (trainer.ParseRecipe; trainer.RecipePaper,
// trainer.PaperRecipe) over cfg's training, resolved as Resolve left it,
// except for the keys given says the caller set; then checks it (Check).
// The settings it set are cfg.RecipeSet.
func WithRecipe(e env.Env, cfg Config, name string, given func(key string) bool) (Config, error) {
	if _, err := trainer.ParseRecipe(name); err != nil {
		return cfg, err
	}
	cfg.Recipe = name
	if name == trainer.RecipePaper {
		cfg.Train, cfg.RecipeSet = trainer.PaperRecipe(cfg.Train, given)
	}
	return cfg, Check(e, cfg)
}
