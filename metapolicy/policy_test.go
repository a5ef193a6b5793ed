package metapolicy

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

type fixed [NumActions]float64

func (f fixed) Name() string { return "fixed" }
func (f fixed) Probs(p *[NumActions]float64, _ *Observation) error {
	*p = f
	return nil
}

func TestSampleFollowsDistribution(t *testing.T) {
	p := fixed{0.2, 0.0, 0.8}
	rng := rand.New(rand.NewPCG(7, 7))
	var counts [NumActions]int
	obs := &Observation{}
	const n = 20000
	for i := 0; i < n; i++ {
		a, lp, err := Sample(p, obs, rng)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(lp-math.Log(p[a])) > 1e-15 {
			t.Fatalf("log-prob %v for %v, want %v", lp, a, math.Log(p[a]))
		}
		counts[a]++
	}
	if counts[Refine] != 0 {
		t.Errorf("sampled a zero-probability action %d times", counts[Refine])
	}
	if f := float64(counts[Concede]) / n; math.Abs(f-0.8) > 0.02 {
		t.Errorf("concede share %v, want ≈ 0.8", f)
	}
}

func TestGreedyPicksMode(t *testing.T) {
	a, lp, err := Greedy(fixed{0.3, 0.4, 0.3}, &Observation{})
	if err != nil || a != Refine || math.Abs(lp-math.Log(0.4)) > 1e-15 {
		t.Errorf("Greedy = %v, %v, %v", a, lp, err)
	}
}

func TestMLPPolicyProbs(t *testing.T) {
	net, err := nn.NewMLP[float32]([]int{FeatureWidth, 8, NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	net.Init(1)
	p, err := NewMLPPolicy("learned", net)
	if err != nil {
		t.Fatal(err)
	}
	obs := &Observation{Self: 1, Round: 2, Rounds: 3, Agents: []AgentState{agent("1", 0.2, 10), agent("2", Missing, 20), agent("2", 0.9, 5)}}
	var pr [NumActions]float64
	if err := p.Probs(&pr, obs); err != nil {
		t.Fatal(err)
	}
	if s := pr[0] + pr[1] + pr[2]; math.Abs(s-1) > 1e-6 {
		t.Errorf("probabilities sum to %v", s)
	}
	bad, _ := nn.NewMLP[float32]([]int{FeatureWidth + 1, NumActions}, nn.Tanh)
	if _, err := NewMLPPolicy("bad", bad); err == nil {
		t.Error("policy with the wrong input width accepted")
	}
	if err := p.Probs(&pr, &Observation{Self: 0, Round: 1, Rounds: 1, Agents: obs.Agents[:1]}); err == nil {
		t.Error("one-agent observation accepted")
	}
}
