package run

import (
	"errors"
	"io"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/trainer"
)

// A Request is a run as its caller (the command line) asks for it: where,
// resumed or replacing what is there, its setting (Setting.Data: offline
// on those rollouts), the config over the base and weights to start from.
// Plan makes the run's Config of it.
type Request struct {
	Dir                               string
	Resume, Overwrite, AllowOtherData bool
	Threads                           int
	Setting                           Setting
	// Given says whether the caller gave a setting anew, by key
	// ("held_out"), as BaseOf takes it; nil: none was.
	Given func(key string) bool
	// Over puts the caller's config (a file, its flags) over the base's:
	// the recipe's, or the resumed run's; nil: the base as it is.
	Over func(base trainer.Config) (trainer.Config, error)
	// Recipe puts a named recipe (trainer.ParseRecipe: "" none, or
	// trainer.RecipePaper, trainer.PaperRecipe) over a fresh run's base,
	// under Over, so that what the caller gives wins; the settings it set
	// are the Base's RecipeSet. A resumed run keeps its own config: the
	// recipe is not applied again.
	Recipe string
	// Init is a weights file (.safetensors or .mpdf) a fresh run starts
	// from; empty: a fresh network.
	Init string
	// AllowSingleBehaviour trains a fresh offline run on rollouts of one
	// deterministic behaviour, which CheckBehaviour refuses otherwise.
	AllowSingleBehaviour bool
	// Log receives the data's notes (UseData); nil discards them.
	Log io.Writer
}

// Errors of Plan, marked as about the setting a caller words.
var (
	// ErrInit marks why the Init weights cannot start the run.
	ErrInit = errmark.Of("init", "init")
	// ErrRecipe marks a recipe name that is not one.
	ErrRecipe = errmark.Of("recipe", "recipe")
	// ErrInitResume: a resumed run has its weights; Init is refused.
	ErrInitResume = errors.New("a resumed run goes on from its checkpoint")
	// ErrOnlineWidth: an online run's features are its environment's, so
	// a FeatureWidth given is refused.
	ErrOnlineWidth = errmark.Of("feature_width", "online runs use the environment's features")
)

// Plan resolves r into the run's Config: its base (BaseOf, returned for
// what a caller says of it: the resumed checkpoint, the recipe, the
// setting), the config over it (Over), the Init weights, and offline the
// data checked (Config.UseData; CheckBehaviour for a fresh run). An
// online run's environment is the caller's to open.
func (r Request) Plan() (Config, Base, error) {
	if r.Given == nil {
		r.Given = func(string) bool { return false }
	}
	if r.Over == nil {
		r.Over = func(base trainer.Config) (trainer.Config, error) { return base, nil }
	}
	b, err := BaseOf(r.Dir, r.Resume, r.Setting, r.Given)
	if err != nil {
		return Config{}, b, err
	}
	if _, err := trainer.ParseRecipe(r.Recipe); err != nil {
		return Config{}, b, errmark.Mark(err, ErrRecipe)
	}
	if r.Recipe == trainer.RecipePaper && b.Resume == nil {
		b.Config, b.RecipeSet = trainer.PaperRecipe(b.Config, r.Given)
	}
	c, err := r.Over(b.Config)
	if err != nil {
		return Config{}, b, err
	}
	rc := b.RunConfig(c, r.Dir)
	rc.Overwrite, rc.Threads, rc.AllowOtherData = r.Overwrite, r.Threads, r.AllowOtherData
	if r.Init != "" {
		if rc.Resume != nil {
			return rc, b, ErrInitResume
		}
		if rc.Init, err = checkpoints.LoadNetworkFor(r.Init, c.FeatureLayout()); err != nil {
			return rc, b, errmark.Mark(err, ErrInit)
		}
	}
	data := b.Setting.Data
	if len(data) == 0 {
		if r.Given("feature_width") && rc.FeatureWidth != 0 {
			return rc, b, ErrOnlineWidth
		}
		return rc, b, nil
	}
	if err := rc.UseData(data, r.Log); err != nil {
		return rc, b, err
	}
	if rc.Resume == nil && !r.AllowSingleBehaviour {
		return rc, b, CheckBehaviour(data)
	}
	return rc, b, nil
}
