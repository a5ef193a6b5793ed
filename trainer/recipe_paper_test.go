package trainer

import (
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// The paper's recipe over each environment's recipe is a valid config of
// slot attention networks trained with rank-match, τ 0.8 and γ 0.9, reading
// peers-v1 whatever layout the environment's recipe had; what it did not
// set stays the environment's; a key given is left as it was and not
// reported as set.
func TestPaperRecipe(t *testing.T) {
	for _, kind := range []string{RecipeSim, RecipeReplay} {
		r, err := DefaultRecipe(kind)
		if err != nil {
			t.Fatal(err)
		}
		c, set := PaperRecipe(r.Train, nil)
		if err := c.Validate(); err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		if c.Agents() != metapolicy.AgentSlot || c.Arch != ArchAttention || !c.Loss.RankMatch() || c.Estimator != SoftRankName ||
			c.Tau != PaperTau || c.Reward.Gamma != PaperGamma || c.FeatureLayout() != metapolicy.FeatureVersionPeers {
			t.Errorf("%s: %+v", kind, c)
		}
		if c.SFT != r.Train.SFT || c.RL != r.Train.RL || c.Adam != r.Train.Adam || c.Loss.Beta != r.Train.Loss.Beta {
			t.Errorf("%s: the recipe changed what it does not set", kind)
		}
		if len(set) != 6 {
			t.Errorf("%s: set %v, want six settings", kind, set)
		}
		if r.Train.Reward.Gamma != 0 || r.Train.Loss.Kind != "" || r.Train.AgentPolicy != "" {
			t.Errorf("%s: PaperRecipe changed its argument's recipe", kind)
		}
	}
	base := DefaultConfig()
	base.Reward.Gamma, base.Loss.Kind, base.Features = 0.5, "", metapolicy.FeatureVersionPeers
	given := map[string]bool{"gamma": true, "loss": true, "features": true}
	c, set := PaperRecipe(base, func(k string) bool { return given[k] })
	if c.Reward.Gamma != 0.5 || c.Loss.Kind != "" || c.Features != metapolicy.FeatureVersionPeers {
		t.Errorf("given keys changed: γ %v, loss %q, features %q", c.Reward.Gamma, nn.LossName(c.Loss.Kind), c.Features)
	}
	for _, s := range set {
		if given[s.Key] {
			t.Errorf("%s reported as set, but it was given", s.Key)
		}
	}
	if _, err := ParseRecipe("papers"); err == nil {
		t.Error("recipe papers accepted")
	}
}
