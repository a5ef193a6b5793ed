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
	// Summary is what the recipe sets, in the config's keys (sft.labels,
	// sft.epochs, features), for a line a caller prints.
	Summary string `json:"summary"`
}

// Recipe kinds.
const (
	RecipeSim    = "sim"
	RecipeReplay = "replay"
)

// ReplayLabels is the replay recipe's teacher: trainer/teacher's pivotal
// labels over gate (teacher.PivotalOver; a test there holds the spelling
// to that teacher).
const ReplayLabels = "pivotal:gate"

// ReplaySFTEpochs is the supervised stage of the replay recipe: the
// pivotal decisions are few (≈ 3 in 100), so the clone needs more passes
// than the 5 of DefaultConfig to learn where they depart from gate.
const ReplaySFTEpochs = 20

// DefaultRecipe is the recipe of an environment kind (RecipeSim or
// RecipeReplay; anything else is an error).
//
// The simulator keeps DefaultConfig: its agents state a
// confidence, which the threshold teacher reads, and its default run is
// held byte for byte.
//
// On transcripts (a replay) the recipe is the one that holds both on
// every shared transcript cross-validated (`mpdf study`, 5 folds × 3
// seeds, λ = 0) and on real debates of models it never saw
// (docs/results.md, 2026-12-01): the pivotal teacher over gate (package
// trainer/teacher's PivotalOver: on gate's play, the best action where
// hindsight says the agent's action changes the team's result, gate's own
// action — refine when round 0 disagrees — everywhere else; a run hands
// the labels to that package, teacher.RunTeacher) for ReplaySFTEpochs
// epochs, the mpdf-features/v2 layout, then SoftRankPO, judged greedy. It
// plays almost as gate does: level with gate in the study, and within
// half a point of it, at no more tokens, on held-out models. The pivotal
// teacher alone (no prior where hindsight is silent) is cheaper in the
// study but learns to refine too rarely for models whose revisions mostly
// fix (5 points under gate there). The heuristic teacher of the
// simulator's recipe reads a confidence that no transcript states, and
// would teach "always refine", i.e. clone debate.
func DefaultRecipe(kind string) (Recipe, error) {
	c := DefaultConfig()
	switch kind {
	case RecipeSim:
		return Recipe{Env: kind, Train: c, Summary: summary(c, false)}, nil
	case RecipeReplay:
		c.SFT.Labels, c.SFT.Epochs, c.Features = ReplayLabels, ReplaySFTEpochs, metapolicy.FeatureVersionV2
		return Recipe{Env: kind, Train: c, Greedy: true,
			Summary: summary(c, true)}, nil
	}
	return Recipe{}, fmt.Errorf("trainer: recipe: environment kind %q, want %s or %s", kind, RecipeSim, RecipeReplay)
}

// summary is a recipe's Summary.
func summary(c Config, greedy bool) string {
	s := fmt.Sprintf("sft.labels %s, sft.epochs %d, features %s", c.SFT.Labels, c.SFT.Epochs, c.Features)
	if greedy {
		s += ", judged greedy"
	}
	return s
}
