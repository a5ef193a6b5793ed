package serve

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// Decide answers a decide request without HTTP: the same validation, the
// same decisions and the same response as POST /v1/decide. A request the
// API rejects gives an error naming the field.
func (p *Policy) Decide(req *DecideRequest) (*DecideResponse, error) {
	ds, ferr := req.check()
	if ferr != nil {
		return nil, fmt.Errorf("serve: %w", ferr)
	}
	return p.decide(req, ds)
}

// decide computes the decisions of validated deliberations. Features go
// through metapolicy.Featurize, the network through the batched float32
// kernels (nn.Workspace), the draw through metapolicy.Sample or Greedy: a
// deliberation decides the same whatever batch it comes in.
func (p *Policy) decide(req *DecideRequest, ds []delib) (*DecideResponse, error) {
	resp := &DecideResponse{FeatureVersion: p.info.FeatureVersion, Policy: p.info.Name, Step: p.info.Step, Mode: modeGreedy}
	var seed uint64
	if req.Mode == modeSample {
		resp.Mode = modeSample
		if req.Seed != nil {
			seed = *req.Seed
		} else {
			seed = rand.Uint64()
		}
		resp.Seed = &seed
	}

	rows := 0
	for i := range ds {
		rows += len(ds[i].agents)
	}
	const in, out = metapolicy.FeatureWidth, metapolicy.NumActions
	x := make([]float32, rows*in)
	logits := make([]float32, rows*out)
	r := 0
	var f [in]float64
	for i := range ds {
		obs := metapolicy.Observation{Round: ds[i].round, Rounds: ds[i].rounds, Agents: ds[i].agents}
		for self := range ds[i].agents {
			obs.Self = self
			if err := metapolicy.Featurize(f[:], &obs); err != nil {
				return nil, fmt.Errorf("serve: deliberation %d agent %d: %w", i, self, err)
			}
			for k, v := range f {
				x[r*in+k] = float32(v)
			}
			r++
		}
	}
	p.forward(logits, x)

	results := make([]Result, len(ds))
	decisions := make([]Decision, rows)
	var answers []string
	var conf []float64
	var probs fixedProbs
	var logp [out]float32
	r = 0
	for i := range ds {
		d := &ds[i]
		n := len(d.agents)
		answers, conf = answers[:0], conf[:0]
		for _, a := range d.agents {
			answers, conf = append(answers, a.Answer), append(conf, a.Confidence)
		}
		res := Result{ID: d.id, TeamAnswer: metapolicy.TeamAnswer(answers, conf, -1), Agents: decisions[r : r+n : r+n]}
		var rng *rand.Rand
		if resp.Mode == modeSample {
			rng = rand.New(rand.NewPCG(seed, uint64(i)))
		}
		obs := metapolicy.Observation{Round: d.round, Rounds: d.rounds, Agents: d.agents}
		for self := range d.agents {
			nn.LogSoftmaxTo(logp[:], logits[r*out:(r+1)*out])
			for k, v := range logp {
				probs[k] = math.Exp(float64(v))
			}
			obs.Self = self
			var a metapolicy.Action
			var lp float64
			var err error
			if rng != nil {
				a, lp, err = metapolicy.Sample(&probs, &obs, rng)
			} else {
				a, lp, err = metapolicy.Greedy(&probs, &obs)
			}
			if err != nil {
				return nil, fmt.Errorf("serve: deliberation %d agent %d: %w", i, self, err)
			}
			decisions[r] = Decision{
				Action:        a,
				Probs:         Probs{Persist: probs[metapolicy.Persist], Refine: probs[metapolicy.Refine], Concede: probs[metapolicy.Concede]},
				LogProb:       lp,
				Answer:        d.agents[self].Answer,
				ConcedeTarget: metapolicy.ConcedeTarget(answers, conf, self),
			}
			r++
		}
		results[i] = res
	}
	if req.Deliberations == nil {
		resp.Result = &results[0]
	} else {
		resp.Results = results
	}
	return resp, nil
}

// fixedProbs is a metapolicy.Policy that returns probabilities computed
// already, so that the draw and its tie rules are metapolicy's own.
type fixedProbs [metapolicy.NumActions]float64

func (f *fixedProbs) Name() string { return "serve" }

func (f *fixedProbs) Probs(p *[metapolicy.NumActions]float64, _ *metapolicy.Observation) error {
	*p = *f
	return nil
}
