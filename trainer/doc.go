// Package trainer turns rewarded decisions into policy updates: the
// group-relative advantages of design §3 (SoftRankPO and the baselines), one
// SoftRankPO update step (design §4) and its metrics, and the supervised and
// RL training loops. A whole training run — supervised stage, RL,
// checkpoints and resume, the metrics log, the final evaluation, in a
// directory or in memory — is package trainer/run (what mpdf train and mpdf
// study call).
//
// # Advantages
//
// An [Estimator] maps the rewards of one group to advantages.
// [NewEstimator] knows "softrank" (SoftRankPO, the default, τ = [DefaultTau]
// = 0.8), and for ablations "grpo" (r − mean)/max(std, 1e-3), "drgrpo"
// r − mean, "rloo" r_i − mean_{j≠i} r_j and "reinforce" r; every std is
// the population std. [GroupAdvantages] applies an estimator to each group
// of a batch, [SoftRankTo] SoftRankPO to one group:
//
//	adv := make([]float64, len(rewards))
//	err := trainer.SoftRankTo(adv, rewards, trainer.DefaultTau)
//
// Bad input is an error, never NaN.
//
// # One update step
//
// A [Stepper] owns one policy (updated in place), a frozen copy of the
// reference policy, the Adam state and reusable buffers;
// [Stepper.Step](samples, lr) checks the [Samples], computes the advantages
// per group, asks the [Backend] ([KernelBackend], or autodiff.Engine, the
// reference) for the loss and the gradient, clips the gradient norm and
// applies one Adam update. A step whose loss or gradient is not finite
// returns a [*NonFiniteError] and leaves the weights and the Adam state
// untouched. Step returns the [Metrics] of design §4, whose JSON keys are
// design §4's names ([MetricNames]). See the example.
//
// # Training loops
//
// [SFT] clones labelled decisions (for instance a heuristic's, from
// [Labels]); [RL] fine-tunes with SoftRankPO, one rollout batch at a time
// ([RL.Update]): update epochs over shuffled whole groups, a KL early stop
// (RLConfig.KLTarget), a learning-rate [Schedule] with warm-up, and bad
// steps skipped and counted. [RL.Iterate] plays an env.Env with the current
// policy and updates (online); a [Dataset] streams rollout files or a pack
// chunk by chunk (offline). [Config] holds every setting, [DefaultConfig]
// the defaults, [DefaultRecipe] the tuned ones per environment kind.
//
// Teachers that label decisions by searching the replay in hindsight are
// package trainer/teacher; they plug into a run as its run.Teacher.
//
// Rewards, advantages and metrics are float64; the network, the batch the
// backend sees and the gradients are float32. A Stepper, an SFT and an RL
// are not safe for concurrent use; estimators are.
package trainer
