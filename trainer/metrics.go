package trainer

import "github.com/mpdf/mpdf/metapolicy"

// The metrics.
//
// Step returns the metrics of design §4 as a Metrics value whose JSON keys
// are exactly design §4's names; MetricNames and AppendValues give them as
// columns. Where design §4 names a metric without defining it:
//
//   - loss, policy_loss, kl, entropy, clip_ratio/low|high are the backend's
//     batch means before the update; clip_ratio/low is the share of rows
//     with ρ < 1 − ε_low and A < 0, /high with ρ > 1 + ε_high and A > 0
//     (TRL's definition: the clip bounded the objective);
//   - reward is the mean over rows; reward_std is the mean over groups of
//     each group's population std (the spread that group-relative
//     advantages see, as in TRL); frac_reward_zero_std is the share of
//     groups whose rewards span ≤ 1e-12 (no signal for SoftRankPO; groups
//     of one count);
//   - advantages/mean|min|max are over rows, after the estimator;
//   - grad_norm is the global norm before clipping; learning_rate the lr
//     given to Step; step_time the wall time of Step in seconds;
//   - actions/persist|refine|concede are shares of rows in [0, 1];
//   - advantages/nonzero is the share of rows whose advantage is not 0
//     (|A| > 1e-9): the decisions the step can move. A group whose rewards
//     all tie gives its rows 0; SoftRankPO gives every row of a group with
//     any spread a non-zero advantage, ties included (design §3).
//
// On a *NonFiniteError the returned Metrics hold the reward, advantage and
// action statistics and zero elsewhere (so they still encode as JSON); on
// other errors they are zero.

// Metrics are the per-step statistics of design §4, under the names other
// trainers (TRL, verl) use; the JSON keys are exactly those names.
//
// Loss statistics are batch means reported by the Backend. Reward statistics
// are over the rows of the batch, except reward_std and frac_reward_zero_std
// which are over its groups. Action shares are fractions of rows in [0, 1].
type Metrics struct {
	Loss       float64 `json:"loss"`            // mean of L_clip + β·KL − c_H·H
	PolicyLoss float64 `json:"policy_loss"`     // mean of L_clip
	KL         float64 `json:"kl"`              // mean exact KL(π_θ ‖ π_ref)
	Entropy    float64 `json:"entropy"`         // mean H(π_θ)
	ClipLow    float64 `json:"clip_ratio/low"`  // share of rows clipped at 1 − ε_low with A < 0
	ClipHigh   float64 `json:"clip_ratio/high"` // share of rows clipped at 1 + ε_high with A > 0

	Reward            float64 `json:"reward"`               // mean reward per row
	RewardStd         float64 `json:"reward_std"`           // mean over groups of the population std of their rewards
	FracRewardZeroStd float64 `json:"frac_reward_zero_std"` // share of groups whose rewards all tie (range ≤ 1e-12)

	AdvMean float64 `json:"advantages/mean"`
	AdvMin  float64 `json:"advantages/min"`
	AdvMax  float64 `json:"advantages/max"`

	GradNorm     float64 `json:"grad_norm"`     // global gradient norm before clipping
	LearningRate float64 `json:"learning_rate"` // the lr Adam used
	StepTime     float64 `json:"step_time"`     // wall time of the step, seconds

	// The action shares, one field per action (metrics.jsonl's and a
	// checkpoint header's keys "actions/<name>", metapolicy's names);
	// ActionShares lists them in action order.
	ActPersist float64 `json:"actions/persist"` // share of rows with action persist
	ActRefine  float64 `json:"actions/refine"`
	ActConcede float64 `json:"actions/concede"`

	AdvNonZero float64 `json:"advantages/nonzero"` // share of rows with |A| > 1e-9
}

// MetricNames returns the metric names in the order of the Metrics fields
// and of AppendValues, for column headers.
func MetricNames() []string {
	return []string{
		"loss", "policy_loss", "kl", "entropy", "clip_ratio/low", "clip_ratio/high",
		"reward", "reward_std", "frac_reward_zero_std",
		"advantages/mean", "advantages/min", "advantages/max",
		"grad_norm", "learning_rate", "step_time",
		actionMetric(metapolicy.Persist), actionMetric(metapolicy.Refine), actionMetric(metapolicy.Concede),
		"advantages/nonzero",
	}
}

// actionMetric is the name of a's share: "actions/" and its name.
func actionMetric(a metapolicy.Action) string { return "actions/" + a.String() }

// ActionShares returns the action shares in action order. Its [...] array
// has as many elements as Metrics has share fields: with another action
// it fails to build until Metrics, MetricNames, AppendValues and
// metricsFromValues gain its field.
func (m *Metrics) ActionShares() [metapolicy.NumActions]float64 {
	return [...]float64{m.ActPersist, m.ActRefine, m.ActConcede}
}

// AppendValues appends the metric values to dst in MetricNames order.
func (m *Metrics) AppendValues(dst []float64) []float64 {
	return append(dst,
		m.Loss, m.PolicyLoss, m.KL, m.Entropy, m.ClipLow, m.ClipHigh,
		m.Reward, m.RewardStd, m.FracRewardZeroStd,
		m.AdvMean, m.AdvMin, m.AdvMax,
		m.GradNorm, m.LearningRate, m.StepTime,
		m.ActPersist, m.ActRefine, m.ActConcede,
		m.AdvNonZero,
	)
}
