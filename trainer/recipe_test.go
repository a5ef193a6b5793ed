package trainer

import (
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

func TestDefaultRecipe(t *testing.T) {
	sim, err := DefaultRecipe(RecipeSim)
	if err != nil {
		t.Fatal(err)
	}
	def := DefaultConfig()
	if sim.Greedy || sim.Train.SFT != def.SFT || sim.Train.Features != def.Features {
		t.Errorf("sim recipe %+v: want DefaultConfig, sampled", sim)
	}
	rep, err := DefaultRecipe(RecipeReplay)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Greedy || rep.Train.SFT.Labels != ReplayLabels || rep.Train.SFT.Epochs != ReplaySFTEpochs ||
		rep.Train.Features != metapolicy.FeatureVersionV2 {
		t.Errorf("replay recipe %+v: want pivotal:gate, %d epochs, v2, greedy", rep, ReplaySFTEpochs)
	}
	if want := "sft.labels pivotal:gate, sft.epochs 20, features mpdf-features/v2, judged greedy"; rep.Summary != want {
		t.Errorf("replay recipe's summary %q, want %q (the config's keys, no flag)", rep.Summary, want)
	}
	if err := rep.Train.Validate(); err != nil {
		t.Error(err)
	}
	if _, err := DefaultRecipe("live"); err == nil {
		t.Error("unknown kind: want an error")
	}
}
