package trainer

import (
	"fmt"

	"github.com/mpdf/mpdf/metapolicy"
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
	Train  Config `json:"train"`
	Greedy bool   `json:"greedy"`
	// Summary is the recipe as flags, for the line a command prints.
	Summary string `json:"summary"`
}

// Recipe kinds.
const (
	RecipeSim    = "sim"
	RecipeReplay = "replay"
)

// ReplayLabels is the replay recipe's teacher: trainer/teacher's pivotal
// labels (teacher.PivotalName; a test there holds the two equal).
const ReplayLabels = "pivotal"

// ReplaySFTEpochs is the supervised stage of the replay recipe: the
// pivotal decisions are few (≈ 3 in 100), so the clone needs more passes
// than the 5 of DefaultConfig.
const ReplaySFTEpochs = 20

// DefaultRecipe is the recipe of an environment kind (RecipeSim or
// RecipeReplay; anything else is an error).
//
// The simulator keeps DefaultConfig: its agents state a
// confidence, which the threshold teacher reads, and its default run is
// held byte for byte.
//
// On transcripts (a replay) the recipe is the one `mpdf study` measures
// best on every shared transcript (README, "Can a learned policy win on
// real deliberations?"; 5 folds × 3 seeds, λ = 0): the pivotal teacher
// (package trainer/teacher's PivotalLabels: clone only the decisions whose
// action changes the team's result; a run hands the labels to that
// package, teacher.RunTeacher) for ReplaySFTEpochs epochs, the mpdf-features/v2 layout, then
// SoftRankPO, judged greedy — +1.3 points over round-0 majority [+0.4,
// +2.3] at 46 % of debate's tokens, level with gate. The heuristic teacher
// of the simulator's recipe reads a confidence that no transcript states,
// and would teach "always refine", i.e. clone debate.
func DefaultRecipe(kind string) (Recipe, error) {
	c := DefaultConfig()
	switch kind {
	case RecipeSim:
		return Recipe{Env: kind, Train: c, Summary: "--sft-labels " + c.SFT.Labels + fmt.Sprintf(" --sft-epochs %d", c.SFT.Epochs) + " --features " + metapolicy.FeatureVersion}, nil
	case RecipeReplay:
		c.SFT.Labels, c.SFT.Epochs, c.Features = ReplayLabels, ReplaySFTEpochs, metapolicy.FeatureVersionV2
		return Recipe{Env: kind, Train: c, Greedy: true,
			Summary: fmt.Sprintf("--sft-labels %s --sft-epochs %d --features %s, judged greedy", ReplayLabels, ReplaySFTEpochs, metapolicy.FeatureVersionV2)}, nil
	}
	return Recipe{}, fmt.Errorf("trainer: recipe: environment kind %q, want %s or %s", kind, RecipeSim, RecipeReplay)
}
