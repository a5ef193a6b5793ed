package trainer

// The training loops.
//
// SFT clones labelled decisions (minibatch Adam on the cross-entropy, its
// own optimiser state). RL fine-tunes with SoftRankPO, one rollout batch at
// a time (RL.Update):
//
//   - behaviour log-probabilities a batch lacks are fixed to the policy's at
//     the start of the update, so every update epoch measures its ratio
//     against the same μ (design §4); π_ref's are computed once per batch;
//   - each update epoch shuffles the groups (seeded) and packs whole groups
//     into minibatches of about RLConfig.BatchSize rows, so a minibatch's
//     advantages equal the batch's;
//   - after an epoch, the k3 estimate mean(ρ − 1 − log ρ) of KL(μ ‖ π) over
//     the batch stops the remaining epochs when it passes RLConfig.KLTarget
//     (PPO's target_kl; design §4's KL to π_ref is a loss term, not a stop).
//     After the last epoch there is nothing left to stop, so the estimate —
//     a forward pass over the whole batch, a fifth of the forward passes of
//     4 epochs — is taken only when RL.FinalKL asks for it;
//   - the learning rate follows RLConfig.Schedule by the share of the run
//     done (RL.Progress), after a linear warm-up in steps;
//   - a step with a non-finite loss or gradient is skipped and counted;
//     Config.MaxBadSteps in a row stop training (ErrTooManyBadSteps).

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/mpdf/mpdf/nn"
)

// RL runs SoftRankPO fine-tuning: rollout batch after rollout batch, several
// update epochs of whole-group minibatches each (design §3–4). It owns the
// Stepper (policy, frozen reference, Adam) and the random stream that
// shuffles minibatches, and counts steps for the learning-rate schedule.
type RL struct {
	cfg      Config
	stepper  *Stepper
	schedule Schedule
	pcg      *rand.PCG
	rng      *rand.Rand

	// Steps is the number of update steps taken (skipped ones included).
	Steps int64
	// Progress is the share of the run done, in [0, 1], for the
	// learning-rate schedule; the caller sets it before each Update.
	Progress float64
	// Skipped counts steps dropped for non-finite values; badRun the
	// current run of them.
	Skipped int64
	badRun  int

	// OnStep, when set, receives every step's metrics (also a skipped
	// step's, with Skipped set).
	OnStep func(StepInfo)

	// FinalKL estimates KL(μ‖π) after the last update epoch too, for
	// UpdateResult.ApproxKL. It stops nothing (no epoch is left), so by
	// default it is skipped; the weights are the same either way.
	FinalKL bool

	// keys name the networks of a decoupled policy (rl_nets.go).
	keys  []string
	index map[string]int32

	// Buffers reused from one Update to the next, and Iterate's rollout
	// batch (rolloutNets its Nets, nil unless decoupled).
	mb          Samples
	rollout     Samples
	rolloutNets []int32
	counter     []float64 // Iterate's counterfactual rewards (Config.Credit)
	buf, logp   []float64
	adv         []float64
	ref         []float32
	groups      grouping
	gstd        []float64 // group → population std of its rewards
	gzero       []bool    // group → its rewards all tie
	pi          []float32 // credit baseline: B×3 log π(·|x) at the update's start
	mbs         minibatcher
}

// StepInfo is what RL reports after each step.
type StepInfo struct {
	Step    int64
	Epoch   int // update epoch within the rollout batch
	Metrics Metrics
	Skipped error // the *NonFiniteError of a skipped step
}

// UpdateResult summarises the update on one rollout batch.
type UpdateResult struct {
	Steps     int     `json:"steps"`
	Epochs    int     `json:"epochs"`     // update epochs run (fewer after an early stop)
	ApproxKL  float64 `json:"approx_kl"`  // k3 estimate of KL(μ‖π) after the last epoch estimated (every epoch but the last, unless RL.FinalKL; none without a KL target)
	EarlyStop bool    `json:"early_stop"` // approx_kl passed rl.kl_target
	Metrics   Metrics `json:"metrics"`    // row-weighted mean of the steps' metrics
}

// ErrTooManyBadSteps stops training after Config.MaxBadSteps non-finite
// steps in a row.
var ErrTooManyBadSteps = errors.New("trainer: too many non-finite steps in a row")

// NewRL fine-tunes policy in place against the frozen reference ref.
func NewRL(backend Backend, policy, ref *nn.MLP[float32], cfg Config) (*RL, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	est, err := cfg.estimator()
	if err != nil {
		return nil, err
	}
	st, err := NewStepper(backend, policy, ref, StepConfig{Adam: cfg.Adam, MaxGradNorm: cfg.MaxGradNorm, Estimator: est})
	if err != nil {
		return nil, err
	}
	sched, _ := ParseSchedule(cfg.RL.Schedule)
	pcg := rand.NewPCG(cfg.Seed, 0x726c) // "rl"
	return &RL{cfg: cfg, stepper: st, schedule: sched, pcg: pcg, rng: rand.New(pcg)}, nil
}

// Stepper exposes the policy, reference and optimiser state.
func (r *RL) Stepper() *Stepper { return r.stepper }

// RNGState is the minibatch shuffler's state, for checkpoints.
func (r *RL) RNGState() ([]byte, error) { return r.pcg.MarshalBinary() }

// SetRNGState restores a state from RNGState.
func (r *RL) SetRNGState(b []byte) error { return r.pcg.UnmarshalBinary(b) }

// Update trains on one rollout batch. Behaviour log-probabilities absent
// from the batch (NaN, or LogProb nil) are fixed to the policy's at the start
// of the update, so that every update epoch measures its ratio against the
// same μ. The batch is not modified.
func (r *RL) Update(batch *Samples) (UpdateResult, error) {
	f := r.stepper.Policy().In()
	if err := batch.Check(f); err != nil {
		return UpdateResult{}, err
	}
	n := batch.Len()
	if err := r.stepper.checkNets(batch.Nets, n); err != nil {
		return UpdateResult{}, err
	}
	full := *batch
	var err error
	if full.LogProb, err = r.behaviourLogProbs(batch); err != nil {
		return UpdateResult{}, err
	}
	// π_ref is frozen: its log-probabilities serve every update epoch; so
	// do the advantages, since minibatches hold whole groups.
	r.ref = grow(r.ref, n*nn.NumActions)
	full.RefLogProb = r.ref
	if err := r.stepper.logProbsTo(full.RefLogProb, r.stepper.ref, batch.Features); err != nil {
		return UpdateResult{}, err
	}
	r.adv = grow(r.adv, n)
	full.Adv = r.adv
	if err := r.advantagesTo(full.Adv, batch); err != nil {
		return UpdateResult{}, err
	}
	var res UpdateResult
	var acc metricsMean
	for ep := 0; ep < r.cfg.RL.UpdateEpochs; ep++ {
		for k, rows := range r.mbs.pack(&r.groups, r.cfg.RL.BatchSize, r.rng) {
			gather(&r.mb, &full, rows, f)
			lr := r.schedule.LR(r.cfg.Adam.LR, r.Steps, int64(r.cfg.RL.Warmup), r.Progress)
			gs := r.summary(r.mbs.groups[k])
			m, err := r.stepper.step(&r.mb, lr, time.Now(), &gs, true) // rows of the checked batch
			r.Steps++
			var nf *NonFiniteError
			switch {
			case errors.As(err, &nf):
				r.Skipped++
				r.badRun++
				if r.OnStep != nil {
					r.OnStep(StepInfo{Step: r.Steps, Epoch: ep, Metrics: m, Skipped: err})
				}
				if r.badRun >= r.cfg.MaxBadSteps {
					return res, fmt.Errorf("%w (%d; last: %v)", ErrTooManyBadSteps, r.badRun, err)
				}
				continue
			case err != nil:
				return res, err
			}
			r.badRun = 0
			res.Steps++
			acc.add(&m, len(rows))
			if r.OnStep != nil {
				r.OnStep(StepInfo{Step: r.Steps, Epoch: ep, Metrics: m})
			}
		}
		res.Epochs = ep + 1
		last := ep+1 == r.cfg.RL.UpdateEpochs
		if last && !r.FinalKL || !last && r.cfg.RL.KLTarget == 0 {
			continue // the estimate only decides an early stop, or is reported when asked
		}
		kl, err := r.approxKL(&full)
		if err != nil {
			return res, err
		}
		res.ApproxKL = kl
		if r.cfg.RL.KLTarget > 0 && kl > r.cfg.RL.KLTarget {
			res.EarlyStop = true
			break
		}
	}
	res.Metrics = acc.mean()
	return res, nil
}

// behaviourLogProbs are the log-probabilities μ of the batch's actions:
// the batch's own where it has them, the policy's now where it has none
// (LogProb nil or NaN).
func (r *RL) behaviourLogProbs(batch *Samples) ([]float64, error) {
	n := batch.Len()
	r.logp = grow(r.logp, n)
	missing := batch.LogProb == nil
	for i := 0; i < n && !missing; i++ {
		missing = math.IsNaN(batch.LogProb[i])
	}
	if missing {
		if err := r.stepper.NetsLogProbsTo(r.logp, batch.Features, batch.Actions, batch.Nets); err != nil {
			return nil, err
		}
	}
	for i := range r.logp {
		if batch.LogProb != nil && !math.IsNaN(batch.LogProb[i]) {
			r.logp[i] = batch.LogProb[i]
		}
	}
	return r.logp, nil
}

// advantagesTo writes the batch's advantages to adv: against the
// counterfactual rewards when the batch has them, else ranked in their
// groups by the estimator, with the groups' reward statistics the steps
// report.
func (r *RL) advantagesTo(adv []float64, batch *Samples) error {
	r.groups.build(batch.Groups)
	switch {
	case batch.Counter != nil:
		return r.counterfactualAdvantages(adv, batch, &r.groups)
	case r.cfg.Credit != "":
		return fmt.Errorf("trainer: credit %s: the batch has no counterfactual rewards", r.cfg.Credit)
	}
	if err := r.groups.advantages(adv, batch.Rewards, r.stepper.est); err != nil {
		return err
	}
	r.gstd, r.gzero = grow(r.gstd, r.groups.len()), grow(r.gzero, r.groups.len())
	for g := range r.groups.len() {
		r.gstd[g], r.gzero[g] = r.groups.groupStat(g, batch.Rewards)
	}
	return nil
}

// summary is the group statistics of a minibatch of the given groups (in
// the order their rows are in it): what grouping.groupStats computes, from
// the rollout batch's per-group values.
func (r *RL) summary(groups []int) groupSummary {
	var gs groupSummary
	zero := 0
	for _, g := range groups {
		gs.stdMean += r.gstd[g]
		if r.gzero[g] {
			zero++
		}
	}
	n := float64(len(groups))
	gs.stdMean /= n
	gs.fracZero = float64(zero) / n
	return gs
}

// approxKL is the k3 estimate mean(ρ − 1 − log ρ) of KL(μ‖π) over the batch,
// ρ = π(a|x)/μ(a|x): non-negative, and zero when nothing moved.
func (r *RL) approxKL(b *Samples) (float64, error) {
	if cap(r.buf) < b.Len() {
		r.buf = make([]float64, b.Len())
	}
	lp := r.buf[:b.Len()]
	if err := r.stepper.NetsLogProbsTo(lp, b.Features, b.Actions, b.Nets); err != nil {
		return 0, err
	}
	s := 0.0
	for i, v := range lp {
		l := max(-20, min(20, v-b.LogProb[i]))
		s += math.Exp(l) - 1 - l
	}
	return s / float64(len(lp)), nil
}

// metricsMean accumulates row-weighted means of Metrics.
type metricsMean struct {
	sum  []float64
	v    []float64 // one step's values
	rows int
	min  float64
	max  float64
}

func (a *metricsMean) add(m *Metrics, rows int) {
	a.v = m.AppendValues(a.v[:0])
	v := a.v
	if a.sum == nil {
		a.sum = make([]float64, len(v))
		a.min, a.max = m.AdvMin, m.AdvMax
	}
	for i, x := range v {
		a.sum[i] += x * float64(rows)
	}
	a.rows += rows
	a.min, a.max = min(a.min, m.AdvMin), max(a.max, m.AdvMax)
}

func (a *metricsMean) mean() Metrics {
	if a.rows == 0 {
		return Metrics{}
	}
	v := make([]float64, len(a.sum))
	for i, s := range a.sum {
		v[i] = s / float64(a.rows)
	}
	m := metricsFromValues(v)
	m.AdvMin, m.AdvMax = a.min, a.max
	return m
}

// metricsFromValues is the inverse of Metrics.AppendValues.
func metricsFromValues(v []float64) Metrics {
	return Metrics{
		Loss: v[0], PolicyLoss: v[1], KL: v[2], Entropy: v[3], ClipLow: v[4], ClipHigh: v[5],
		Reward: v[6], RewardStd: v[7], FracRewardZeroStd: v[8],
		AdvMean: v[9], AdvMin: v[10], AdvMax: v[11],
		GradNorm: v[12], LearningRate: v[13], StepTime: v[14],
		ActPersist: v[15], ActRefine: v[16], ActConcede: v[17],
		AdvNonZero: v[18],
	}
}
