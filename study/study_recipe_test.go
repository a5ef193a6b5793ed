package study

import "testing"

// The replay recipe fills what the user did not give, and only that.
func TestWithReplayRecipe(t *testing.T) {
	rec, err := DefaultConfigFor("replay")
	if err != nil {
		t.Fatal(err)
	}
	c, epochs, err := WithReplayRecipe(DefaultConfig(), -1, RecipeGiven{})
	if err != nil {
		t.Fatal(err)
	}
	if c.Train.SFT.Labels != rec.Train.SFT.Labels || epochs != rec.Train.SFT.Epochs || c.Train.Features != rec.Train.Features || c.Greedy != rec.Greedy {
		t.Errorf("nothing given: labels %q, epochs %d, features %q, greedy %v; want the recipe's", c.Train.SFT.Labels, epochs, c.Train.Features, c.Greedy)
	}
	mine := DefaultConfig()
	mine.Train.SFT.Labels, mine.Train.Features = "hindsight", "mpdf-features/v1"
	c, epochs, err = WithReplayRecipe(mine, 3, RecipeGiven{Labels: true, Epochs: true, Features: true, Greedy: true})
	if err != nil {
		t.Fatal(err)
	}
	if c.Train.SFT.Labels != "hindsight" || epochs != 3 || c.Train.Features != "mpdf-features/v1" || c.Greedy != mine.Greedy {
		t.Errorf("all given: labels %q, epochs %d, features %q, greedy %v; want the user's", c.Train.SFT.Labels, epochs, c.Train.Features, c.Greedy)
	}
	// Labels given, epochs not: the recipe's epochs belong to its teacher, not to the user's.
	if _, epochs, _ = WithReplayRecipe(mine, -1, RecipeGiven{Labels: true}); epochs != -1 {
		t.Errorf("labels given, epochs not: epochs %d, want -1 (left to SFTEpochs)", epochs)
	}
}
