package trainer

// The update step.
//
// A Stepper owns one policy (updated in place), a frozen copy of the
// reference policy (a copy, so passing the policy itself as its own
// reference, as a run without a supervised stage does, keeps π_ref at the
// initial weights), the Adam state and reusable buffers. Step(samples, lr):
//
//  1. checks the Samples at the boundary (lengths, feature width, actions,
//     finite features and rewards, log-probabilities finite and ≤ 0, NaN
//     meaning absent), with errors that name the row;
//  2. computes the advantages per group, in float64;
//  3. computes log π_ref(·|x) of the frozen reference and, for rows without
//     a behaviour log-probability, the policy's log π(a|x) at the start of
//     the step, as a constant (design §4). For several update epochs over one
//     rollout, fix them once with PolicyLogProbsTo before the first epoch;
//  4. asks the Backend for the loss and the gradient (the gradient buffer
//     is zeroed first, unless the backend writes it whole; the features and
//     given reference log-probabilities are passed without copying);
//  5. if the loss, one of its parts or any gradient is NaN or ±Inf, returns
//     a *NonFiniteError and leaves the weights and the Adam state
//     byte-identical, so the caller can count the step and go on;
//  6. clips the global gradient norm when StepConfig.MaxGradNorm > 0
//     (nn.ClipGradNorm, as PyTorch's clip_grad_norm_) and applies one Adam
//     update with lr, which overrides StepConfig.Adam.LR so a schedule can
//     drive it.
//
// The loss coefficients (ε_low, ε_high, β, c_H) belong to the Backend,
// which is built with an nn.LossConfig; StepConfig does not repeat them, so
// there is one source of truth. A Stepper is not safe for concurrent use.

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/bits"
	"slices"
	"time"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// StepConfig configures a Stepper. The loss coefficients are not here: the
// Backend is built with them.
type StepConfig struct {
	Adam        nn.AdamConfig `json:"adam"`
	MaxGradNorm float64       `json:"max_grad_norm"` // global gradient-norm clip; 0 means none
	Estimator   Estimator     `json:"-"`             // nil means SoftRankPO with DefaultTau
}

// DefaultStepConfig returns design §4's defaults: Adam (3e-4, 0.9, 0.999,
// 1e-8), no gradient clip, SoftRankPO with τ = 0.8.
func DefaultStepConfig() StepConfig {
	return StepConfig{Adam: nn.DefaultAdam(), Estimator: SoftRankEstimator{Tau: DefaultTau}}
}

// NonFiniteError reports a NaN or infinite value met during a step; the step
// left the policy and the optimiser state untouched, so the caller may count
// it and go on with the next batch.
type NonFiniteError struct {
	What  string  // "loss", "kl", "gradient", "reference log-probability", ...
	Index int     // row or parameter index, −1 when the value is a batch mean
	Value float64 // the offending value
}

func (e *NonFiniteError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("trainer: step: %s is %v", e.What, e.Value)
	}
	return fmt.Sprintf("trainer: step: %s[%d] is %v", e.What, e.Index, e.Value)
}

// Stepper runs SoftRankPO update steps on a policy. It holds the backend, the
// policy (updated in place), a frozen copy of the reference policy, the Adam
// state and the buffers a step reuses. A Stepper is not safe for concurrent
// use.
type Stepper struct {
	backend Backend
	policy  *nn.MLP[float32]
	ref     *nn.MLP[float32]
	est     Estimator
	maxNorm float64
	// rankMatch: the backend's loss is nn.LossRankMatch, which centres
	// within groups, so every batch carries its rows' group indices.
	rankMatch bool
	// beta and entropy are the loss's β and c_H, which several networks
	// under rank-match need (step_nets.go).
	beta, entropy float64
	adam          *nn.Adam[float32]

	grad   []float32
	batch  nn.Batch[float32]
	adv    []float64
	groups grouping
	fwd    forward
	all    []float32 // B×NumActions log-probabilities of the policy
	// refLogp: the reference's log-probabilities when a batch comes
	// without them (batch.RefLogp aliases the batch's otherwise).
	refLogp []float32

	// nets are the networks (step_nets.go): nets[0] is policy; more after
	// AddNet, their parameters then views of flat.
	nets  []*nn.MLP[float32]
	flat  []float32
	sub   nn.Batch[float32] // one network's rows of batch
	rows  []int
	subX  []float32
	subLp []float32
	// lpa, coef, subCoef: the rank-match coefficients of several networks.
	lpa, coef, subCoef []float64
}

// NewStepper returns a Stepper that updates policy in place. ref is copied,
// so it stays frozen whatever happens to the original; policy and ref must
// have the same shape, with nn.NumActions outputs.
func NewStepper(backend Backend, policy, ref *nn.MLP[float32], cfg StepConfig) (*Stepper, error) {
	switch {
	case backend == nil:
		return nil, fmt.Errorf("trainer: stepper: nil backend")
	case policy == nil || ref == nil:
		return nil, fmt.Errorf("trainer: stepper: nil policy or reference")
	case policy.Out() != nn.NumActions:
		return nil, fmt.Errorf("trainer: stepper: policy has %d outputs, want %d", policy.Out(), nn.NumActions)
	case !sameShape(policy, ref):
		return nil, fmt.Errorf("trainer: stepper: reference %v %v differs from policy %v %v", ref.Sizes, ref.Act, policy.Sizes, policy.Act)
	case !(cfg.MaxGradNorm >= 0) || math.IsInf(cfg.MaxGradNorm, 0):
		return nil, fmt.Errorf("trainer: stepper: max_grad_norm %v, want a finite value ≥ 0", cfg.MaxGradNorm)
	}
	if n, err := nn.ParamCount(policy.Sizes, policy.Attn); err != nil || n != len(policy.Params) || len(ref.Params) != n {
		return nil, fmt.Errorf("trainer: stepper: %d policy and %d reference parameters for sizes %v", len(policy.Params), len(ref.Params), policy.Sizes)
	}
	if err := cfg.Adam.Validate(); err != nil {
		return nil, fmt.Errorf("trainer: stepper: %w", err)
	}
	est := cfg.Estimator
	if est == nil {
		est = SoftRankEstimator{Tau: DefaultTau}
	}
	lc, ok := backend.(LossConfiger)
	var loss nn.LossConfig
	if ok {
		loss = lc.LossConfig()
	}
	return &Stepper{
		rankMatch: loss.RankMatch(),
		beta:      loss.Beta,
		entropy:   loss.Entropy,
		backend:   backend,
		policy:    policy,
		ref:       ref.Clone(),
		est:       est,
		maxNorm:   cfg.MaxGradNorm,
		adam:      nn.NewAdam[float32](cfg.Adam, len(policy.Params)),
		grad:      make([]float32, len(policy.Params)),
		nets:      []*nn.MLP[float32]{policy},
	}, nil
}

func sameShape(a, b *nn.MLP[float32]) bool {
	return a.Act == b.Act && a.Attn == b.Attn && slices.Equal(a.Sizes, b.Sizes)
}

// Policy is the network the steps update.
func (s *Stepper) Policy() *nn.MLP[float32] { return s.policy }

// Reference is the frozen copy of the reference policy.
func (s *Stepper) Reference() *nn.MLP[float32] { return s.ref }

// Adam is the optimiser state, for checkpoints: restore one by copying its
// M, V and Step into it.
func (s *Stepper) Adam() *nn.Adam[float32] { return s.adam }

// Step runs one update on batch with learning rate lr:
//
//  1. advantages of the rewards, per group, by the configured estimator
//     (unless the batch carries them);
//  2. log π_ref(·|x) of the frozen reference, and the behaviour log-prob of
//     rows without one: the policy's log π(a|x) now, treated as a constant;
//  3. loss and gradient from the backend;
//  4. if the loss or any gradient is NaN or ±Inf: a *NonFiniteError, with the
//     policy and the Adam state untouched;
//  5. the global gradient-norm clip, when configured, and one Adam update.
//
// The metrics describe the batch before the update. On a *NonFiniteError
// they hold the reward, advantage and action statistics and zero for the
// rest; on other errors they are zero.
func (s *Stepper) Step(batch *Samples, lr float64) (Metrics, error) {
	start := time.Now()
	if !(lr >= 0) || math.IsInf(lr, 0) {
		return Metrics{}, fmt.Errorf("trainer: step: learning rate %v, want a finite value ≥ 0", lr)
	}
	if batch == nil {
		return Metrics{}, fmt.Errorf("trainer: step: nil samples")
	}
	// batch.Check and checkNets, in their order of errors, except that the
	// rows of a batch with advantages are checked by step's pass over them
	// (batchMetrics), whose sums come out non-finite when a value is.
	in := s.policy.In()
	if err := batch.checkShape(in); err != nil {
		return Metrics{}, err
	}
	rowsChecked := batch.Adv == nil // the estimator reads the rewards first
	if rowsChecked && !rowsValid(batch) {
		return Metrics{}, batch.rowError()
	}
	if err := checkFeatures(batch.Features, in); err != nil {
		return Metrics{}, firstErr(batch.rowError(), err)
	}
	if err := s.checkNets(batch.Nets, batch.Len()); err != nil {
		return Metrics{}, firstErr(batch.rowError(), err)
	}
	return s.step(batch, lr, start, nil, rowsChecked)
}

// gradOverwriter is a Backend whose LossAndGrad may write every element
// of the gradient (KernelBackend's MLP), so that a step need not zero it
// first.
type gradOverwriter interface{ overwritesGrad() bool }

// firstErr is the first of errors that is not nil.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// groupSummary is a batch's group statistics of Metrics (RewardStd,
// FracRewardZeroStd), when the caller has them.
type groupSummary struct{ stdMean, fracZero float64 }

// step is Step on samples that have passed Check: RL.Update checks a rollout
// batch once, and its minibatches are rows of it. RL.Update also gives the
// group statistics (gs) of minibatches with advantages, computed once per
// rollout batch; the step then needs no grouping of its own. Without
// rowsChecked the samples have passed Check but for the values of their rows
// (Step's batches with advantages), which batchMetrics's pass checks.
func (s *Stepper) step(batch *Samples, lr float64, start time.Time, gs *groupSummary, rowsChecked bool) (Metrics, error) {
	if !(lr >= 0) || math.IsInf(lr, 0) {
		return Metrics{}, fmt.Errorf("trainer: step: learning rate %v, want a finite value ≥ 0", lr)
	}
	n := batch.Len()
	switch {
	case batch.Adv == nil || s.rankMatch: // the estimator or the loss needs the rows of each group
		s.groups.build(batch.Groups)
	case gs == nil: // only groupStats
		s.groups.buildRuns(batch.Groups)
	}
	adv := batch.Adv // read in place: Step never modifies Samples
	if adv == nil {
		s.adv = grow(s.adv, n)
		adv = s.adv
		if err := s.groups.advantages(adv, batch.Rewards, s.est); err != nil {
			return Metrics{}, err
		}
	}
	var mt Metrics
	missing, suspect := s.batchMetrics(&mt, batch, adv, gs)
	if suspect && !rowsChecked {
		if err := batch.rowError(); err != nil {
			return Metrics{}, err
		}
	}
	if err := s.fillBatch(batch, missing); err != nil {
		return mt, err
	}

	var st nn.LossStats
	var err error
	if len(s.nets) == 1 {
		if ow, ok := s.backend.(gradOverwriter); !ok || !ow.overwritesGrad() {
			clear(s.grad)
		}
		st, err = s.backend.LossAndGrad(s.grad, s.policy, &s.batch)
	} else {
		clear(s.grad)
		st, err = s.netsLossAndGrad(batch.Nets)
	}
	if err != nil {
		return mt, fmt.Errorf("trainer: step: backend: %w", err)
	}
	for _, v := range [...]struct {
		what string
		x    float64
	}{{"loss", st.Loss}, {"policy_loss", st.PolicyLoss}, {"kl", st.KL}, {"entropy", st.Entropy}} {
		if math.IsNaN(v.x) || math.IsInf(v.x, 0) {
			return mt, &NonFiniteError{What: v.what, Index: -1, Value: v.x}
		}
	}
	// The norm is NaN or ±Inf when any gradient is: one pass finds both.
	norm := nn.GradNorm(s.grad)
	if math.IsNaN(norm) || math.IsInf(norm, 0) {
		if i := nn.FirstNonFinite(s.grad); i >= 0 {
			return mt, &NonFiniteError{What: "gradient", Index: i, Value: float64(s.grad[i])}
		}
		return mt, &NonFiniteError{What: "gradient norm", Index: -1, Value: norm}
	}
	mt.GradNorm = norm
	if s.maxNorm > 0 && norm > s.maxNorm {
		nn.Scale(s.grad, float32(s.maxNorm/(norm+1e-6))) // as nn.ClipGradNorm and PyTorch
	}
	s.adam.UpdateFast(s.params(), s.grad, lr)

	mt.Loss, mt.PolicyLoss, mt.KL, mt.Entropy = st.Loss, st.PolicyLoss, st.KL, st.Entropy
	mt.ClipLow, mt.ClipHigh = st.ClipLow, st.ClipHigh
	mt.LearningRate = lr
	mt.StepTime = time.Since(start).Seconds()
	return mt, nil
}

// fillBatch completes the backend's batch that batchMetrics began (the
// advantages and the given behaviour log-probabilities): features (aliased,
// not copied), actions, reference log-probabilities (aliased when given) and
// the behaviour log-probabilities of the rows missing one.
func (s *Stepper) fillBatch(b *Samples, missing bool) error {
	n := b.Len()
	s.batch.X, s.batch.Actions = b.Features, b.Actions
	s.batch.Group = nil
	if s.rankMatch { // the groups of b, numbered from 0 (grouping.build)
		s.batch.Group = s.groups.id[:n]
	}
	if b.RefLogProb != nil {
		s.batch.RefLogp = b.RefLogProb // the backend only reads a batch
	} else {
		s.refLogp = grow(s.refLogp, n*nn.NumActions)
		s.batch.RefLogp = s.refLogp
		if err := s.logProbsTo(s.batch.RefLogp, s.ref, b.Features); err != nil {
			return err
		}
	}
	if i := nn.FirstNonFinite(s.batch.RefLogp); i >= 0 {
		return &NonFiniteError{What: "reference log-probability", Index: i / nn.NumActions, Value: float64(s.batch.RefLogp[i])}
	}
	if !missing {
		return nil
	}
	s.all = grow(s.all, n*nn.NumActions)
	if err := s.netLogProbsTo(s.all, b.Features, b.Nets); err != nil {
		return err
	}
	for i, a := range b.Actions {
		if b.LogProb != nil && !math.IsNaN(b.LogProb[i]) {
			continue // batchMetrics wrote it
		}
		v := s.all[i*nn.NumActions+int(a)]
		if f := float64(v); math.IsNaN(f) || math.IsInf(f, 0) {
			return &NonFiniteError{What: "behaviour log-probability", Index: i, Value: f}
		}
		s.batch.BehLogp[i] = v
	}
	return nil
}

// batchMetrics fills the reward, advantage and action statistics of b with
// advantages adv and, in the same pass over the rows, the backend batch's
// float32 advantages and given behaviour log-probabilities; it reports
// whether a row misses its behaviour log-probability. One pass instead of
// six: the two float64 sums, each a chain of dependent adds, run side by
// side, and in row order as mean's (the same bits). b has passed Check but
// perhaps for its rows' values: suspect reports an action outside the
// three, a log-probability above the slack or −Inf, or a non-finite sum of
// the rewards or advantages (which a NaN or ±Inf makes, and an overflow),
// so that Check's row checks cost the ALU slots beside the sums' chains.
func (s *Stepper) batchMetrics(mt *Metrics, b *Samples, adv []float64, gs *groupSummary) (missing, suspect bool) {
	n := b.Len()
	if gs != nil {
		mt.RewardStd, mt.FracRewardZeroStd = gs.stdMean, gs.fracZero
	} else {
		mt.RewardStd, mt.FracRewardZeroStd = s.groups.groupStats(b.Rewards)
	}
	s.batch.Adv = grow(s.batch.Adv, n)
	s.batch.BehLogp = grow(s.batch.BehLogp, n)
	rw, acts, advF := b.Rewards[:n], b.Actions[:n], s.batch.Adv[:n]
	adv = adv[:n]
	// The range by compares whose branches are rarely taken (a running
	// minimum changes a few times). Go's min and max (a NaN wins, −0 is
	// below +0) are chains of four instructions; the compares give their
	// bits but for a NaN, which makes sa NaN, and a zero extreme, which
	// may be −0 or +0: those take minMax, Go's.
	lo, hi := math.Inf(1), math.Inf(-1)
	sr, sa := 0.0, 0.0
	c1, c2, c3 := countActions(acts)
	// The given behaviour log-probabilities are converted in the same
	// pass; one in [−MaxFloat64, slack] is valid, the rest (NaN, absent;
	// ±Inf or above the slack, wrong) are rare, sorted out after.
	lps, bl := b.LogProb, s.batch.BehLogp[:n]
	if lps != nil {
		lps = lps[:n]
	}
	odd := false
	i := 0
	for ; i+2 <= n; i += 2 {
		if lps != nil {
			l0, l1 := lps[i], lps[i+1]
			bl[i], bl[i+1] = float32(l0), float32(l1) // a NaN's row is rewritten by fillBatch
			if !(l0 >= -math.MaxFloat64 && l0 <= logProbSlack && l1 >= -math.MaxFloat64 && l1 <= logProbSlack) {
				odd = true
			}
		}
		a0, a1 := adv[i], adv[i+1]
		sr += rw[i]
		sa += a0
		sr += rw[i+1]
		sa += a1
		if a0 < lo {
			lo = a0
		}
		if a0 > hi {
			hi = a0
		}
		if a1 < lo {
			lo = a1
		}
		if a1 > hi {
			hi = a1
		}
		advF[i], advF[i+1] = float32(a0), float32(a1)
	}
	for ; i < n; i++ {
		if lps != nil {
			bl[i] = float32(lps[i])
			if !(lps[i] >= -math.MaxFloat64 && lps[i] <= logProbSlack) {
				odd = true
			}
		}
		a := adv[i]
		sr += rw[i]
		sa += a
		if a < lo {
			lo = a
		}
		if a > hi {
			hi = a
		}
		advF[i] = float32(a)
	}
	if math.IsNaN(sa) || lo == 0 || hi == 0 {
		lo, hi = minMax(adv)
	}
	suspect = c3 != 0 || math.IsNaN(sr-sr) || math.IsNaN(sa-sa)
	mt.Reward, mt.AdvMean = meanOf(sr, rw), meanOf(sa, adv)
	mt.AdvMin, mt.AdvMax = lo, hi
	nf := float64(n)
	nz := 0
	for _, a := range adv {
		nz += b2i(math.Abs(a) > 1e-9)
	}
	mt.AdvNonZero = float64(nz) / nf
	mt.ActPersist, mt.ActRefine, mt.ActConcede = float64(n-c1-c2)/nf, float64(c1)/nf, float64(c2)/nf

	if lps == nil {
		return true, suspect
	}
	if !odd {
		return false, suspect
	}
	for _, lp := range lps {
		missing = missing || lp != lp
		suspect = suspect || lp > logProbSlack || lp < -math.MaxFloat64
	}
	return missing, suspect
}

// countActions counts the actions refine (1) and concede (2), and those
// above 2, eight bytes a word: in a word of actions 0, 1 or 2, bit 0 of a
// byte is a refine and bit 1 a concede; a byte with both bits, or a higher
// one, is above 2. Three integer operations a row in the metrics loop were
// a fifth of its work.
func countActions(acts []uint8) (refine, concede, above int) {
	// The bit tricks are for three actions: this fails to build otherwise.
	var _ = [1]struct{}{}[metapolicy.NumActions-3]

	const b0, b1, high = 0x0101010101010101, 0x0202020202020202, 0xfcfcfcfcfcfcfcfc
	n := len(acts) &^ 7
	bad := uint64(0)
	for i := 0; i < n; i += 8 {
		w := binary.LittleEndian.Uint64(acts[i : i+8])
		refine += bits.OnesCount64(w & b0)
		concede += bits.OnesCount64(w & b1)
		bad |= w&high | w&(w>>1)&b0
	}
	for _, a := range acts[n:] {
		x := int(a)
		refine += x & 1
		concede += x >> 1 & 1
		bad |= uint64(x&^2&^1) | uint64(x&(x>>1)&1)
	}
	if bad != 0 {
		above = 1
	}
	return refine, concede, above
}

// minMax is min and max over a, Go's (a NaN wins, −0 is below +0).
func minMax(a []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range a {
		lo, hi = min(lo, v), max(hi, v)
	}
	return lo, hi
}

// meanOf is mean(r) given sum, r's sum in order: mean's value, with its
// overflow fallback.
func meanOf(sum float64, r []float64) float64 {
	if math.IsInf(sum, 0) {
		return mean(r)
	}
	return sum / float64(len(r))
}
