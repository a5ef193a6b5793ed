package trainer

import (
	"fmt"
	"strconv"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// RecipePaper names the paper's recipe (`--recipe paper`, PaperRecipe):
// the method of Learning to Deliberate as design.md reads it, where mpdf's
// defaults are what measured best.
const RecipePaper = "paper"

// PaperTau is SoftRankPO's temperature in the paper's recipe: the best of
// the paper's grid over {0.4 … 5.0} (design §10).
const PaperTau = 0.8

// PaperGamma is the discount of the paper's recipe. The paper's objective
// is a discounted return E[Σ_t γ^t Σ_i r_i^t] and it names no γ; with
// R = 3 rounds, 0.9 weighs the last round's reward at 0.81 of the
// decision's own (a decision is credited for how the deliberation ends,
// as the paper's return does) while keeping its own round's effect first,
// which later decisions of other agents did not shape; γ = 1 would make
// the local term telescope to "right at the end" alone. The γ ablation
// measured 0.9 level with 0 and 1 in accuracy (design §2, results.md).
const PaperGamma = 0.9

// RecipeSetting is one setting a recipe set: its key (a config key in the
// form the command line's flag takes with "_" for "-": agent_policy, arch,
// loss, estimator, tau, gamma) and its value as the flag would spell it.
type RecipeSetting struct {
	Key, Value string
}

// ParseRecipe checks a recipe name: "" (none: the environment's default
// recipe) or RecipePaper.
func ParseRecipe(name string) (string, error) {
	switch name {
	case "", RecipePaper:
		return name, nil
	}
	return "", fmt.Errorf("trainer: recipe %q, want %s (or none)", name, RecipePaper)
}

// PaperRecipe puts the paper's method over c and returns it with the
// settings it set: decoupled per-agent networks (agent_policy slot),
// attention over the peers (arch attention, reading
// metapolicy.FeatureVersionPeers), the rank-matching loss, SoftRankPO at
// τ = PaperTau, and returns with γ = PaperGamma (design §10). A key that
// given reports (nil: none) is left as c has it, so that a setting the
// caller gave wins over the recipe; the features give way to the attention
// network's layout unless given (SettleFeatures). Everything else — the
// supervised stage, its teacher, the sizes, the optimiser — is c's: the
// paper does not fix them in a way mpdf can follow (design §10).
func PaperRecipe(c Config, given func(key string) bool) (Config, []RecipeSetting) {
	if given == nil {
		given = func(string) bool { return false }
	}
	var set []RecipeSetting
	put := func(key, value string, apply func()) {
		if !given(key) {
			apply()
			set = append(set, RecipeSetting{key, value})
		}
	}
	put("agent_policy", string(metapolicy.AgentSlot), func() { c.AgentPolicy = string(metapolicy.AgentSlot) })
	put("arch", ArchAttention, func() { c.Arch = ArchAttention })
	put("loss", nn.LossRankMatch, func() { c.Loss.Kind = nn.LossRankMatch })
	put("estimator", SoftRankName, func() { c.Estimator = SoftRankName })
	put("tau", strconv.FormatFloat(PaperTau, 'g', -1, 64), func() { c.Tau = PaperTau })
	put("gamma", strconv.FormatFloat(PaperGamma, 'g', -1, 64), func() { c.Reward.Gamma = PaperGamma })
	c.SettleFeatures(given("features"))
	return c, set
}
