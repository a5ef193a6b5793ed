package trainer_test

import (
	"fmt"
	"slices"

	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/trainer"
)

// A Stepper makes one SoftRankPO update from a batch of rewarded
// decisions: advantages ranked within each group, the clipped surrogate
// with the KL to a frozen reference, one Adam step. Here two groups
// (tasks) of three decisions each, with three features per decision.
func ExampleStepper() {
	sizes := []int{3, 8, nn.NumActions}
	policy, err := nn.NewMLP[float32](sizes, nn.Tanh)
	if err != nil {
		panic(err)
	}
	policy.Init(7)
	backend, err := trainer.NewKernelBackend(sizes, nn.Tanh, nn.DefaultLoss(), 1)
	if err != nil {
		panic(err)
	}
	defer backend.Close()
	st, err := trainer.NewStepper(backend, policy, policy.Clone(), trainer.DefaultStepConfig())
	if err != nil {
		panic(err)
	}
	batch := &trainer.Samples{
		Features: []float32{
			0.9, 0.1, 0, 0.5, 0.5, 1, 0.1, 0.9, 0,
			0.8, 0.2, 1, 0.4, 0.6, 0, 0.2, 0.7, 1,
		},
		Actions: []uint8{0, 1, 2, 0, 1, 2}, // persist, refine, concede
		Rewards: []float64{1, 0.2, -0.5, 0.7, 0.7, -1},
		Groups:  []string{"task-1", "task-1", "task-1", "task-2", "task-2", "task-2"},
		// LogProb nil: the behaviour policy is the current one (on-policy).
	}
	before := slices.Clone(policy.Params)
	m, err := st.Step(batch, 1e-2)
	if err != nil {
		panic(err)
	}
	fmt.Printf("reward %.3f, kl to the reference %.3f, advantages in [%.2f, %.2f]\n", m.Reward, m.KL, m.AdvMin, m.AdvMax)
	fmt.Println("policy updated:", !slices.Equal(before, policy.Params), "at learning rate", m.LearningRate)
	// Output:
	// reward 0.183, kl to the reference 0.000, advantages in [-0.78, 0.51]
	// policy updated: true at learning rate 0.01
}

// SoftRankTo ranks the rewards of one group: the advantages depend on the
// order and relative gaps of the rewards, not on their scale, and equal
// rewards get equal advantages.
func ExampleSoftRankTo() {
	for _, rewards := range [][]float64{
		{1, 0.2, 0.2, -0.5},
		{100, 20, 20, -50}, // the same group, scaled by 100
	} {
		adv := make([]float64, len(rewards))
		if err := trainer.SoftRankTo(adv, rewards, trainer.DefaultTau); err != nil {
			panic(err)
		}
		fmt.Printf("%.3f\n", adv)
	}
	// Output:
	// [0.855 -0.022 -0.022 -0.811]
	// [0.855 -0.022 -0.022 -0.811]
}

// PaperRecipe is `--recipe paper` for a Go caller: the paper's method over
// an environment's recipe, a setting the caller gives left as it is
// (here γ), and the settings it set, for a line to print.
func ExamplePaperRecipe() {
	r, err := trainer.DefaultRecipe(trainer.RecipeSim)
	if err != nil {
		panic(err)
	}
	c, set := trainer.PaperRecipe(r.Train, func(key string) bool { return key == "gamma" })
	for _, s := range set {
		fmt.Printf("%s %s\n", s.Key, s.Value)
	}
	fmt.Println(c.Validate() == nil, c.FeatureLayout(), c.Reward.Gamma)
	// Output:
	// agent_policy slot
	// arch attention
	// loss rank-match
	// estimator softrank
	// tau 0.8
	// true mpdf-features/peers-v1 0
}
