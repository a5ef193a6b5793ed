package trainer

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

	ActPersist float64 `json:"actions/persist"` // share of rows with action persist
	ActRefine  float64 `json:"actions/refine"`
	ActConcede float64 `json:"actions/concede"`
}

// MetricNames returns the metric names in the order of the Metrics fields
// and of AppendValues, for column headers.
func MetricNames() []string {
	return []string{
		"loss", "policy_loss", "kl", "entropy", "clip_ratio/low", "clip_ratio/high",
		"reward", "reward_std", "frac_reward_zero_std",
		"advantages/mean", "advantages/min", "advantages/max",
		"grad_norm", "learning_rate", "step_time",
		"actions/persist", "actions/refine", "actions/concede",
	}
}

// AppendValues appends the metric values to dst in MetricNames order.
func (m *Metrics) AppendValues(dst []float64) []float64 {
	return append(dst,
		m.Loss, m.PolicyLoss, m.KL, m.Entropy, m.ClipLow, m.ClipHigh,
		m.Reward, m.RewardStd, m.FracRewardZeroStd,
		m.AdvMean, m.AdvMin, m.AdvMax,
		m.GradNorm, m.LearningRate, m.StepTime,
		m.ActPersist, m.ActRefine, m.ActConcede,
	)
}
