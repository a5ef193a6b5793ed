package trainer

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// creditSamples are six rows of two groups with counterfactual rewards:
// row 2's three actions tie (no action changes its reward).
func creditSamples(rl *RL, rng *rand.Rand) *Samples {
	f := rl.Stepper().Policy().In()
	s := &Samples{
		Actions: []uint8{0, 1, 2, 1, 0, 2},
		Rewards: []float64{1, 0, 0.5, -1, 2, 0},
		Groups:  []string{"a", "a", "a", "b", "b", "b"},
		Counter: []float64{
			1, 0, 0.5, // row 0 took persist (1): the best
			1, 0, 0.5, // row 1 took refine (0): the worst
			0.5, 0.5, 0.5, // row 2: a tie
			0, -1, 0, // row 3 took refine (−1)
			2, -1, 3, // row 4 took persist (2): the middle
			0, 1, 0, // row 5 took concede (0)
		},
	}
	for range s.Len() * f {
		s.Features = append(s.Features, float32(rng.NormFloat64()))
	}
	return s
}

// Counterfactual credit: a decision's advantage is the estimator's on its
// own three rewards, at the action taken; a decision whose three tie gets
// 0; the groups' statistics are those of the rows' triples.
func TestCounterfactualAdvantagesAsDefined(t *testing.T) {
	cfg := smallConfig()
	cfg.Credit = CreditCounterfactual
	rl := newTestRL(t, cfg, metapolicy.FeatureWidth)
	b := creditSamples(rl, rand.New(rand.NewPCG(3, 3)))
	var g grouping
	g.build(b.Groups)
	adv := make([]float64, b.Len())
	if err := rl.counterfactualAdvantages(adv, b, &g); err != nil {
		t.Fatal(err)
	}
	for i := range adv {
		want := SoftRank(b.Counter[3*i:3*i+3], DefaultTau)[b.Actions[i]]
		if adv[i] != want {
			t.Errorf("row %d: advantage %v, want the SoftRankPO advantage of its action among its three, %v", i, adv[i], want)
		}
	}
	if adv[2] != 0 || !(adv[0] > 0) || !(adv[1] < 0) || !(adv[3] < 0) {
		t.Errorf("advantages %v: want row 2 (a tie) 0, rows 0 > 0, 1 < 0, 3 < 0", adv)
	}
	if rl.gzero[0] || rl.gzero[1] {
		t.Errorf("groups with spread counted as ties: %v", rl.gzero)
	}

	// Baseline: the action's reward minus the policy-weighted mean of the three.
	cfg.Credit = CreditBaseline
	rl = newTestRL(t, cfg, metapolicy.FeatureWidth)
	if err := rl.counterfactualAdvantages(adv, b, &g); err != nil {
		t.Fatal(err)
	}
	lp := make([]float32, b.Len()*nn.NumActions)
	if err := rl.Stepper().logProbsTo(lp, rl.Stepper().Policy(), b.Features); err != nil {
		t.Fatal(err)
	}
	for i := range adv {
		base := 0.0
		for a := range nn.NumActions {
			base += math.Exp(float64(lp[3*i+a])) * b.Counter[3*i+a]
		}
		if want := b.Counter[3*i+int(b.Actions[i])] - base; math.Abs(adv[i]-want) > 1e-6 { // float32 probabilities

			t.Errorf("row %d: baseline advantage %v, want %v", i, adv[i], want)
		}
	}
	if math.Abs(adv[2]) > 1e-12 {
		t.Errorf("a tie's baseline advantage %v, want 0", adv[2])
	}

	// An update trains on them, and a batch without them is refused.
	if _, err := rl.Update(b); err != nil {
		t.Fatal(err)
	}
	b.Counter = nil
	if _, err := rl.Update(b); err == nil {
		t.Error("credit baseline updated on a batch without counterfactual rewards")
	}
}

// Counterfactual credit needs an environment that replays its episodes
// (the simulator draws its outcomes afresh), γ = 0, and a shared MLP.
func TestCounterfactualCreditRefusals(t *testing.T) {
	cfg := smallConfig()
	cfg.Credit = CreditCounterfactual
	cfg.RL.TasksPerIter, cfg.RL.EpisodesPerTask, cfg.RL.Rounds = 2, 2, 2
	rl := newTestRL(t, cfg, metapolicy.FeatureWidth)
	if _, err := rl.Iterate(goldEnv{tasks: 2, scored: 2}, 0); !errors.Is(err, env.ErrNoCounterfactual) {
		t.Errorf("a seeded environment: %v, want ErrNoCounterfactual", err)
	}
	for _, bad := range []func(*Config){
		func(c *Config) { c.Reward.Gamma = 0.5 },
		func(c *Config) { c.AgentPolicy = "slot" },
		func(c *Config) { c.Credit = "counter" },
	} {
		c := cfg
		bad(&c)
		if c.Validate() == nil {
			t.Errorf("config %+v validated", c)
		}
	}
}
