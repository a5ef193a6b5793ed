package metapolicy

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"

	"github.com/mpdf/mpdf/nn"
)

// BatchPolicy is a Policy that also gives the distributions of many
// observations in one call, so that a runner can gather the decisions of a
// round across the episodes in flight and a learned policy can run them
// through its network together. The rows may come from different episodes,
// teams and agent slots; how to group them (one network, or one per slot or
// model) is the implementation's business.
type BatchPolicy interface {
	Policy
	// ProbsBatch writes π(·|obs[i]) into p[i] for every i (len(p) ==
	// len(obs)), the very values Probs would give one at a time: batching
	// must not change a bit of an episode. On error it returns a *RowError
	// naming the first observation that failed; rows before it are written.
	ProbsBatch(p [][NumActions]float64, obs []Observation) error
}

// RowError is a ProbsBatch error: which observation failed, and why.
type RowError struct {
	Row int
	Err error
}

func (e *RowError) Error() string { return fmt.Sprintf("row %d: %v", e.Row, e.Err) }
func (e *RowError) Unwrap() error { return e.Err }

// Batch returns p as a BatchPolicy: p itself when it is one, else p with a
// ProbsBatch that calls Probs row by row.
func Batch(p Policy) BatchPolicy {
	if b, ok := p.(BatchPolicy); ok {
		return b
	}
	return rowByRow{p}
}

// rowByRow is a plain Policy with ProbsBatch. It keeps the wrapped policy's
// other methods out of sight, so Play asks the original policy what it is
// (SelfRefiner), never the adapter.
type rowByRow struct{ Policy }

func (r rowByRow) ProbsBatch(p [][NumActions]float64, obs []Observation) error {
	return probsRows(r.Policy, p, obs)
}

// probsRows is ProbsBatch by looping over Probs.
func probsRows(pol Policy, p [][NumActions]float64, obs []Observation) error {
	if len(p) != len(obs) {
		return fmt.Errorf("metapolicy: %d distributions for %d observations", len(p), len(obs))
	}
	for i := range obs {
		if err := pol.Probs(&p[i], &obs[i]); err != nil {
			return &RowError{Row: i, Err: err}
		}
	}
	return nil
}

// SampleFrom draws an action from the distribution pr with one draw of rng
// and returns it with its log-probability: Sample, given the probabilities.
func SampleFrom(pr *[NumActions]float64, rng *rand.Rand) (Action, float64) {
	u := rng.Float64()
	a := Action(NumActions - 1)
	acc := 0.0
	for i, v := range pr {
		acc += v
		if u < acc {
			a = Action(i)
			break
		}
	}
	for pr[a] == 0 && a > 0 { // rounding left u past the last non-zero mass
		a--
	}
	return a, math.Log(pr[a])
}

// GreedyFrom returns the most probable action of pr (lowest index on ties)
// and its log-probability: Greedy, given the probabilities.
func GreedyFrom(pr *[NumActions]float64) (Action, float64) {
	best := argmax(pr)
	return best, math.Log(pr[best])
}

// forwardScratch is one ProbsBatch call's buffers, pooled: a policy may be
// asked from several goroutines at once.
type forwardScratch struct {
	f       []float64
	targets []string
	x       []float32
	logits  []float32
	buf     []float64
	// uniqueRows: the distinct rows of x, their logits, each row's number
	// among them, and rows by hash.
	ux, ulogits []float32
	of          []int
	seen        map[uint64]int
}

// uniqueRows copies the distinct rows of s.x (n rows of w, compared bit
// for bit) into s.ux, in order of first appearance, sets s.of[i] to row
// i's number among them, and returns how many there are.
func uniqueRows(s *forwardScratch, n, w int) int {
	s.ux, s.of = grow(s.ux, n*w), grow(s.of, n)
	if s.seen == nil {
		s.seen = map[uint64]int{}
	}
	clear(s.seen)
	u := 0
	for i := range n {
		row := s.x[i*w : (i+1)*w]
		h := uint64(14695981039346656037) // FNV-1a over the rows' bits
		for _, v := range row {
			h = (h ^ uint64(math.Float32bits(v))) * 1099511628211
		}
		if k, ok := s.seen[h]; ok && sameBits(s.ux[k*w:(k+1)*w], row) {
			s.of[i] = k
			continue
		} else if !ok {
			s.seen[h] = u // a colliding row stays apart: not found again, still right
		}
		copy(s.ux[u*w:(u+1)*w], row)
		s.of[i] = u
		u++
	}
	return u
}

// sameBits reports whether a and b hold the same bits.
func sameBits(a, b []float32) bool {
	for j, v := range a {
		if math.Float32bits(v) != math.Float32bits(b[j]) {
			return false
		}
	}
	return true
}

var forwardPool = sync.Pool{New: func() any { return new(forwardScratch) }}

// NetProbsBatch is ProbsBatch of a softmax over net's logits of fz's
// features, what the learned policies run: the features of every row (a
// whole team at once where the rows are one deliberation's agents in order
// and fz has a Team form), one nn.LogitsRows pass, and per row the softmax
// Probs computes, in the same arithmetic. A policy with several networks
// (one per agent slot or model, say) can call it once per network on the
// rows that network decides.
func NetProbsBatch(net *nn.MLP[float32], fz Featurizer, p [][NumActions]float64, obs []Observation) error {
	if len(p) != len(obs) {
		return fmt.Errorf("metapolicy: %d distributions for %d observations", len(p), len(obs))
	}
	s := forwardPool.Get().(*forwardScratch)
	defer forwardPool.Put(s)
	w, n := fz.Width, len(obs)
	s.x = grow(s.x, n*w)
	s.logits = grow(s.logits, n*NumActions)
	var rowErr error
	for i := 0; i < n; {
		if k := teamRun(obs[i:]); k > 1 && fz.Team != nil {
			s.f, s.targets = grow(s.f, k*w), grow(s.targets, k)
			if _, err := fz.Team(s.f, s.targets, &obs[i]); err == nil {
				widen(s.x[i*w:(i+k)*w], s.f)
				i += k
				continue
			} // else row by row, which names the row that fails
		}
		s.f = grow(s.f, w)
		clear(s.f) // Probs featurizes into a fresh, zeroed vector
		if err := fz.Featurize(s.f, &obs[i]); err != nil {
			n, rowErr = i, &RowError{Row: i, Err: err}
			break
		}
		widen(s.x[i*w:(i+1)*w], s.f)
		i++
	}
	// Rows of the same features, bit for bit (the episodes of one task
	// until their draws first differ: a quarter to a half of an online
	// iteration's rows), run once: LogitsRows gives each row what Logits
	// gives it alone, so which rows share a pass changes nothing.
	u := uniqueRows(s, n, w)
	s.ulogits = grow(s.ulogits, u*NumActions)
	s.buf = net.LogitsRows(s.ulogits, s.ux[:u*w], s.buf)
	for i := range n {
		k := s.of[i]
		copy(s.logits[i*NumActions:(i+1)*NumActions], s.ulogits[k*NumActions:(k+1)*NumActions])
	}
	var logp [NumActions]float32
	for i := range n {
		nn.LogSoftmaxTo(logp[:], s.logits[i*NumActions:(i+1)*NumActions])
		for j, v := range logp {
			p[i][j] = math.Exp(float64(v))
		}
	}
	return rowErr
}

// teamRun is the number of leading rows of obs that are one deliberation's
// agents 0, 1, … in order — the same round, states and history — up to the
// team's size; 0 when obs[0] is not its team's agent 0.
func teamRun(obs []Observation) int {
	o := &obs[0]
	n := len(o.Agents)
	if o.Self != 0 || n == 0 || len(obs) < n {
		return 0
	}
	for s := 1; s < n; s++ {
		q := &obs[s]
		if q.Self != s || q.Round != o.Round || q.Rounds != o.Rounds || !same(q.Agents, o.Agents) || !same(q.History, o.History) {
			return 0
		}
	}
	return n
}

// same reports whether a and b are the same slice (same start and length).
func same[T any](a, b []T) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// widen copies the features into the network's input, as Probs does.
func widen(x []float32, f []float64) {
	for j, v := range f {
		x[j] = float32(v)
	}
}

// grow returns s with length n, reallocated only when too short.
func grow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}

// defaultFeaturizer is the layout MLPPolicy reads.
var defaultFeaturizer = Featurizers()[0]

// ProbsBatch implements BatchPolicy: one forward pass for all rows.
func (p *MLPPolicy) ProbsBatch(pr [][NumActions]float64, obs []Observation) error {
	return NetProbsBatch(p.Net, defaultFeaturizer, pr, obs)
}

// ProbsBatch implements BatchPolicy: one forward pass for all rows.
func (p *FeaturizedPolicy) ProbsBatch(pr [][NumActions]float64, obs []Observation) error {
	return NetProbsBatch(p.Net, p.Features, pr, obs)
}

// ProbsBatch implements BatchPolicy: the wrapped policy's batch, each row's
// mass then moved onto its most probable action.
func (g GreedyPolicy) ProbsBatch(p [][NumActions]float64, obs []Observation) error {
	err := Batch(g.Policy).ProbsBatch(p, obs)
	n := len(p)
	if re := (*RowError)(nil); errors.As(err, &re) {
		n = re.Row
	} else if err != nil {
		return err
	}
	for i := range p[:n] {
		best := argmax(&p[i])
		p[i] = [NumActions]float64{}
		p[i][best] = 1
	}
	return err
}
