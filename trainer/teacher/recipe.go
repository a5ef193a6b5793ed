package teacher

import (
	"fmt"
	"math/rand/v2"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/trainer"
)

// Recipe is the training a run starts from on one kind of environment:
// the configuration before any --config file or flag, and whether the
// learned policy is judged greedy. `mpdf train` and `mpdf study` both
// start from it, so that a user who gives no flag trains what the study
// measured best there.
type Recipe struct {
	// Env is the kind of environment: "sim" or "replay".
	Env string `json:"env"`
	// Train is the configuration; Greedy says the learned policy plays its
	// most probable action when evaluated (the verdict, a study's test side).
	Train  trainer.Config `json:"train"`
	Greedy bool           `json:"greedy"`
	// Summary is the recipe as flags, for the line a command prints.
	Summary string `json:"summary"`
}

// Recipe kinds.
const (
	RecipeSim    = "sim"
	RecipeReplay = "replay"
)

// ReplaySFTEpochs is the supervised stage of the replay recipe: the
// pivotal decisions are few (≈ 3 in 100), so the clone needs more passes
// than the 5 of trainer.DefaultConfig.
const ReplaySFTEpochs = 20

// DefaultRecipe is the recipe of an environment kind (RecipeSim or
// RecipeReplay; anything else is an error).
//
// The simulator keeps trainer.DefaultConfig: its agents state a
// confidence, which the threshold teacher reads, and its default run is
// held byte for byte.
//
// On transcripts (a replay) the recipe is the one `mpdf study` measures
// best on every shared transcript (README, "Can a learned policy win on
// real deliberations?"; 5 folds × 3 seeds, λ = 0): the pivotal teacher
// (PivotalLabels: clone only the decisions whose action changes the team's
// result) for ReplaySFTEpochs epochs, the mpdf-features/v2 layout, then
// SoftRankPO, judged greedy — +1.3 points over round-0 majority [+0.4,
// +2.3] at 46 % of debate's tokens, level with gate. The heuristic teacher
// of the simulator's recipe reads a confidence that no transcript states,
// and would teach "always refine", i.e. clone debate.
func DefaultRecipe(kind string) (Recipe, error) {
	c := trainer.DefaultConfig()
	switch kind {
	case RecipeSim:
		return Recipe{Env: kind, Train: c, Summary: "--sft-labels " + c.SFT.Labels + fmt.Sprintf(" --sft-epochs %d", c.SFT.Epochs) + " --features " + metapolicy.FeatureVersion}, nil
	case RecipeReplay:
		c.SFT.Labels, c.SFT.Epochs, c.Features = PivotalName, ReplaySFTEpochs, metapolicy.FeatureVersionV2
		return Recipe{Env: kind, Train: c, Greedy: true,
			Summary: fmt.Sprintf("--sft-labels %s --sft-epochs %d --features %s, judged greedy", PivotalName, ReplaySFTEpochs, metapolicy.FeatureVersionV2)}, nil
	}
	return Recipe{}, fmt.Errorf("teacher: recipe: environment kind %q, want %s or %s", kind, RecipeSim, RecipeReplay)
}

// Fallback adapts cfg to what its teacher can label in e (the training
// tasks): the hindsight and pivotal teachers label only questions with a
// gold answer and at least one deliberation round. When no task has both,
// the supervised stage is skipped (SFT.Epochs 0: the run trains online
// only) and note says so; when some lack them, cfg is unchanged and note
// says how many the teacher labels. A heuristic teacher, or a skipped
// stage, returns cfg unchanged and no note.
func Fallback(e env.Env, cfg trainer.Config) (trainer.Config, string, error) {
	if !Handles(cfg.SFT.Labels) || cfg.SFT.Epochs == 0 {
		return cfg, "", nil
	}
	n := e.NumTasks()
	noGold, noRound := 0, 0
	for task := range n {
		g, err := e.Start(task, rand.New(rand.NewPCG(cfg.Seed, uint64(task))))
		if err != nil {
			return cfg, "", fmt.Errorf("teacher: %s: task %d: %w", e.Name(), task, err)
		}
		_, _, gold := g.Task()
		switch {
		case gold == "":
			noGold++
		case env.RoundsOf(e, task, cfg.RL.Rounds) < 1:
			noRound++
		}
	}
	labelled := n - noGold - noRound
	switch {
	case labelled == n:
		return cfg, "", nil
	case labelled > 0:
		return cfg, fmt.Sprintf("the %s teacher labels %d of the %d training questions (%d have no gold answer, %d record no deliberation round)",
			cfg.SFT.Labels, labelled, n, noGold, noRound), nil
	}
	cfg.SFT.Epochs = 0
	why := "has a gold answer"
	if noGold == 0 {
		why = "records a deliberation round"
	}
	note := fmt.Sprintf("the %s teacher has nothing to label (none of the %d training questions %s): supervised stage skipped, training online only (--sft-epochs 0)",
		cfg.SFT.Labels, n, why)
	if noGold == n {
		note += "; without gold answers the reward has no correctness to score either"
	}
	return cfg, note, nil
}
