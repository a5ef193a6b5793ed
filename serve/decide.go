package serve

// How a request is decided.
//
// Features are those of the layout the policy file records
// (metapolicy.FeaturizerFor; the version travels in every response),
// computed a deliberation at a time by the layout's team featurizer:
// metapolicy.FeaturizeTeam for mpdf-features/v1, FeaturizeTeamV2 for
// mpdf-features/v2, which also reads the request's optional history (nil
// when absent, which v2 encodes as unknown); both write rows bit-identical
// to their one-agent featurizer. The network runs on nn's batched float32
// kernels, so that a
// large batch costs little more per decision than the features; the draw
// and its tie rules are metapolicy.Sample's and Greedy's. Probabilities
// agree with metapolicy.MLPPolicy to about 1e-6 (float32 kernels with a
// rational tanh, against float64 sums), and a deliberation decides the same,
// bit for bit, alone or anywhere in a batch. Greedy mode takes the most
// probable action (lowest index on ties); sample mode draws deliberation i
// of a request from PCG(seed, i), its agents in order.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// Decide answers a decide request without HTTP: the same validation, the
// same decisions and the same response as POST /v1/decide on a server
// without the critic. A request the API rejects gives an error naming the
// field.
func (p *Policy) Decide(req *DecideRequest) (*DecideResponse, error) {
	return p.DecideWith(req, DecideOptions{})
}

// DecideOptions are the server-side settings of a decision.
type DecideOptions struct {
	// Critic fills the confidence of agents given as text without one with
	// the critic's read from the text, as Config.Critic.
	Critic bool
}

// DecideWith is Decide with options: the answer of POST /v1/decide on a
// server configured as o says.
func (p *Policy) DecideWith(req *DecideRequest, o DecideOptions) (*DecideResponse, error) {
	ds, ferr := req.checkIn(stopper{}, nil, o.Critic)
	if ferr == nil {
		ferr = p.fits(ds, req.Deliberations == nil)
	}
	if ferr != nil {
		return nil, fmt.Errorf("serve: %w", ferr)
	}
	return p.decide(stopper{}, req, ds, nil)
}

// decide computes the decisions of validated deliberations. Features go
// through the layout's team featurizer (metapolicy.FeaturizeTeam or
// FeaturizeTeamV2: every agent's row at once, bit for bit its featurizer's),
// which also gives the team answer and concede targets. The
// network goes through the batched float32 kernels (nn.Workspace), the draw
// through metapolicy.Sample or Greedy: a deliberation decides the same
// whatever batch it comes in.
//
// With an arena (the HTTP handler's), the response is the arena's: it is
// valid until the arena is put back. It stops, with errStopped's error,
// when st says so: st is checked between deliberations.
func (p *Policy) decide(st stopper, req *DecideRequest, ds []delib, a *arena) (*DecideResponse, error) {
	resp, seed := p.newResponse(req, a)
	rows := 0
	for i := range ds {
		rows += len(ds[i].agents)
	}
	sc := scratchPool.Get().(*scratch)
	defer sc.put()
	x, logits, targets := sc.size(rows, p.fz.Width)
	if err := p.featurize(st, ds, sc, x, targets); err != nil {
		return nil, err
	}
	if p.dec != nil {
		p.forwardNets(logits, x, sc.nets, sc)
	} else {
		p.forward(logits, x)
	}

	var results []Result
	var decisions []Decision
	if a != nil {
		a.results = append(a.results[:0], make([]Result, len(ds))...)
		a.decisions = append(a.decisions[:0], make([]Decision, rows)...)
		results, decisions = a.results, a.decisions
	} else {
		results, decisions = make([]Result, len(ds)), make([]Decision, rows)
	}
	if err := p.draw(st, ds, sc, logits, targets, resp.Mode, seed, results, decisions); err != nil {
		return nil, err
	}
	if req.Deliberations == nil {
		resp.Result = &results[0]
	} else {
		resp.Results = results
	}
	return resp, nil
}

// newResponse starts the response (the arena's when there is one): the
// policy's identity and the mode, with sample mode's seed, the request's or
// a random one, which it also returns.
func (p *Policy) newResponse(req *DecideRequest, a *arena) (resp *DecideResponse, seed uint64) {
	if a != nil {
		resp = &a.resp
	} else {
		resp = new(DecideResponse)
	}
	*resp = DecideResponse{FeatureVersion: p.info.FeatureVersion, Policy: p.info.Name, Step: p.info.Step, Mode: modeGreedy}
	if req.Mode == modeSample {
		resp.Mode = modeSample
		if req.Seed != nil {
			seed = *req.Seed
		} else {
			seed = rand.Uint64()
		}
		resp.Seed = new(uint64)
		*resp.Seed = seed
	}
	return resp, seed
}

// featurize writes every agent's feature row into x and concede target
// into targets, a deliberation at a time, and the team answers into
// sc.teams; for a decoupled policy each row's network into sc.nets.
func (p *Policy) featurize(st stopper, ds []delib, sc *scratch, x []float32, targets []string) error {
	in := p.fz.Width
	teams := sc.teams[:0]
	sc.nets = sc.nets[:0]
	r := 0
	for i := range ds {
		if i%stopEvery == 0 && st.stop() {
			return errStopped
		}
		if testHookDeliberation != nil {
			testHookDeliberation()
		}
		d := &ds[i]
		n := len(d.agents)
		if cap(sc.f) < n*in {
			sc.f = make([]float64, n*in)
		}
		f := sc.f[:n*in]
		obs := &sc.obs // in the scratch: the featurizer is a func value, so obs escapes
		*obs = metapolicy.Observation{Round: d.round, Rounds: d.rounds, Agents: d.agents, History: d.history}
		team, err := p.fz.Team(f, targets[r:r+n], obs)
		if err != nil {
			return fmt.Errorf("serve: deliberation %d: %w", i, err)
		}
		teams = append(teams, team)
		for k, v := range f {
			x[r*in+k] = float32(v)
		}
		if p.dec != nil {
			for self := range d.agents {
				sc.nets = append(sc.nets, p.dec.netOf(self, d.agents))
			}
		}
		r += n
	}
	sc.teams = teams
	return nil
}

// draw turns the logits into each deliberation's result and its agents'
// decisions: greedy, or in sample mode drawn from PCG(seed, i) for
// deliberation i.
func (p *Policy) draw(st stopper, ds []delib, sc *scratch, logits []float32, targets []string, mode string, seed uint64, results []Result, decisions []Decision) error {
	const out = metapolicy.NumActions
	probs := &sc.probs // in the scratch, as obs: both go through an interface
	var logp [out]float32
	r := 0
	for i := range ds {
		if i%stopEvery == 0 && st.stop() {
			return errStopped
		}
		d := &ds[i]
		n := len(d.agents)
		res := Result{ID: d.id, TeamAnswer: sc.teams[i], Agents: decisions[r : r+n : r+n]}
		if d.history == nil && d.round > 0 && p.fz.Version == metapolicy.FeatureVersionV2 {
			res.FeaturesIncomplete = HistoryMissing
		}
		var rng *rand.Rand
		if mode == modeSample {
			rng = rand.New(rand.NewPCG(seed, uint64(i)))
		}
		obs := &sc.obs
		*obs = metapolicy.Observation{Round: d.round, Rounds: d.rounds, Agents: d.agents, History: d.history}
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
				a, lp, err = metapolicy.Sample(probs, obs, rng)
			} else {
				a, lp, err = metapolicy.Greedy(probs, obs)
			}
			if err != nil {
				return fmt.Errorf("serve: deliberation %d agent %d: %w", i, self, err)
			}
			decisions[r] = Decision{
				Action:        a,
				Probs:         Probs(*probs),
				LogProb:       lp,
				Answer:        d.agents[self].Answer,
				ConcedeTarget: targets[r],
			}
			r++
		}
		results[i] = res
	}
	return nil
}

// testHookDeliberation, when set (by tests only), runs before each
// deliberation is featurized: a slow request on demand.
var testHookDeliberation func()

// scratch is one request's working memory, pooled so that a decide
// allocates little more than its response.
type scratch struct {
	x, logits []float32
	f         []float64 // one deliberation's features (a row per agent)
	targets   []string
	teams     []string
	obs       metapolicy.Observation // the deliberation being featurized or drawn
	probs     fixedProbs
	// A decoupled policy's: each row's network, and one network's rows.
	nets      []int32
	rows      []int
	subX      []float32
	subLogits []float32
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// size returns the feature rows (in features each), logits and concede
// targets for rows agents, growing the buffers when needed.
func (s *scratch) size(rows, in int) (x, logits []float32, targets []string) {
	const out = metapolicy.NumActions
	if cap(s.x) < rows*in {
		s.x = make([]float32, rows*in)
	}
	if cap(s.targets) < rows {
		s.logits = make([]float32, rows*out)
		s.targets = make([]string, rows)
	}
	return s.x[:rows*in], s.logits[:rows*out], s.targets[:rows]
}

// put returns s to the pool without the strings of the request, and drops
// the buffers of a huge batch rather than keep them alive.
func (s *scratch) put() {
	if cap(s.targets) > maxPooledRows {
		return
	}
	s.obs = metapolicy.Observation{}
	clear(s.targets[:cap(s.targets)])
	clear(s.teams[:cap(s.teams)])
	s.teams = s.teams[:0]
	scratchPool.Put(s)
}

// maxPooledRows bounds the agents whose buffers a pooled scratch keeps.
const maxPooledRows = 1 << 14

// fixedProbs is a metapolicy.Policy that returns probabilities computed
// already, so that the draw and its tie rules are metapolicy's own.
type fixedProbs [metapolicy.NumActions]float64

func (f *fixedProbs) Name() string { return "serve" }

func (f *fixedProbs) Probs(p *[metapolicy.NumActions]float64, _ *metapolicy.Observation) error {
	*p = *f
	return nil
}
