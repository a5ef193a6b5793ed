package metapolicy

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mpdf/mpdf/nn"
)

// Policy gives a distribution over the three actions for an observation.
// Learned and heuristic policies implement it alike, so that every
// environment, evaluator and collector runs either.
type Policy interface {
	// Name identifies the policy in tables and episode records.
	Name() string
	// Probs writes π(·|obs) into p.
	Probs(p *[NumActions]float64, obs *Observation) error
}

// Sample draws an action from p's distribution and returns it with its
// log-probability (the behaviour log-probability of design §4).
func Sample(p Policy, obs *Observation, rng *rand.Rand) (Action, float64, error) {
	var pr [NumActions]float64
	if err := p.Probs(&pr, obs); err != nil {
		return 0, 0, err
	}
	a, lp := SampleFrom(&pr, rng)
	return a, lp, nil
}

// Greedy returns the most probable action (lowest index on ties) and its
// log-probability.
func Greedy(p Policy, obs *Observation) (Action, float64, error) {
	var pr [NumActions]float64
	if err := p.Probs(&pr, obs); err != nil {
		return 0, 0, err
	}
	a, lp := GreedyFrom(&pr)
	return a, lp, nil
}

// argmax is the most probable action, the lowest index on ties.
func argmax(p *[NumActions]float64) Action {
	best := 0
	for i := 1; i < NumActions; i++ {
		if p[i] > p[best] {
			best = i
		}
	}
	return Action(best)
}

// MLPPolicy is a learned policy: softmax of an MLP over Featurize's vector.
type MLPPolicy struct {
	Label string
	Net   *nn.MLP[float32]
}

// NewMLPPolicy checks that net maps FeatureWidth features to NumActions logits.
func NewMLPPolicy(name string, net *nn.MLP[float32]) (*MLPPolicy, error) {
	if net.In() != FeatureWidth || net.Out() != NumActions {
		return nil, fmt.Errorf("metapolicy: network maps %d → %d, want %d features → %d actions",
			net.In(), net.Out(), FeatureWidth, NumActions)
	}
	return &MLPPolicy{Label: name, Net: net}, nil
}

func (p *MLPPolicy) Name() string { return p.Label }

func (p *MLPPolicy) Probs(pr *[NumActions]float64, obs *Observation) error {
	var f [FeatureWidth]float64
	if err := Featurize(f[:], obs); err != nil {
		return err
	}
	var x [FeatureWidth]float32
	for i, v := range f {
		x[i] = float32(v)
	}
	var logits, logp [NumActions]float32
	p.Net.Logits(logits[:], x[:])
	nn.LogSoftmaxTo(logp[:], logits[:])
	for i, v := range logp {
		pr[i] = math.Exp(float64(v))
	}
	return nil
}

// GreedyPolicy wraps a policy into its deterministic greedy version: all
// mass on the most probable action (lowest index on ties).
type GreedyPolicy struct{ Policy }

func (g GreedyPolicy) Name() string { return g.Policy.Name() + "/greedy" }

func (g GreedyPolicy) Probs(p *[NumActions]float64, obs *Observation) error {
	if err := g.Policy.Probs(p, obs); err != nil {
		return err
	}
	best := argmax(p)
	*p = [NumActions]float64{}
	p[best] = 1
	return nil
}
