// Package trainer turns rewarded decisions into policy updates: the
// group-relative advantage estimators of design §3 (SoftRankPO and the
// baselines), one SoftRankPO update step (design §4) and its metrics, and the
// supervised and RL training loops.
//
// # Advantages
//
// An Estimator maps the rewards of one group to advantages. NewEstimator
// knows "softrank" (SoftRankPO, the default, τ = 0.8), and for ablations
// "grpo" (r − mean)/max(std, 1e-3), "drgrpo" r − mean, "rloo"
// r_i − mean_{j≠i} r_j and "reinforce" r. Every std in this package is the
// population std. GroupAdvantages applies an estimator to each group of a
// batch.
//
// Groups are keyed by exact string (design §3's group key, by default the task
// id); "" is a key like any other, and a group may hold any number of rows.
// A group of one gets advantage 0 from every estimator but reinforce.
// Groups are processed in order of first appearance, so results never depend
// on map order.
//
// SoftRankPO follows design §3 to the letter, including its two absolute
// thresholds: a group whose rewards span ≤ 1e-12 gets zeros, and a robust
// scale c = 1.4826·MAD ≤ 1e-12 falls back to the std. The advantages are
// therefore invariant to scale and shift only as long as neither threshold
// is crossed. How it is computed:
//
//   - Rewards are divided by the power of two 2^e just above max|r|. That is
//     exact, so ties, order and every ratio (r_i − r_j)/(τc) are unchanged,
//     a power-of-two rescaling of the rewards changes no bit of the result,
//     and rewards near ±MaxFloat64 neither overflow nor lose order.
//   - Medians sort (of an even count: the mean of the middle two).
//   - Equal rewards are merged into one value with a multiplicity (a tie
//     adds σ(0) = 1/2 per partner), so they get bit-identical advantages and
//     the pairwise sums cost O(u²) for u distinct rewards: a group of 4096
//     rewards on five levels is as cheap as one of five.
//   - The sums visit each pair once (σ(−d) = 1 − σ(d)); pairs farther apart
//     than 50·τc add exactly 0 or 1 (σ(−50) < 2e-22, below half an ulp of
//     any s_i); within a block of values spanning ≤ 50·τc the exponential
//     of a difference is a product of two precomputed ones, so the inner
//     loop has no exp. softRankSumsRef is the plain loop it replaces; the
//     tests hold them within 1e-12.
//   - Φ⁻¹ is gonum's distuv.UnitNormal.Quantile. A running maximum over
//     the sorted distinct values keeps A non-decreasing in r against
//     rounding (it can move a value by rounding error only).
//   - The scratch buffers come from a sync.Pool; SoftRankTo allocates
//     nothing once they have grown to the group size. Estimators carry no
//     mutable state and are safe for concurrent use.
//
// Bad input is an error, never NaN: an empty group, a dst of another
// length, a NaN or infinite reward, τ not finite and > 0, and (drgrpo,
// rloo) advantages that overflow.
//
// # The update step
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
//     is zeroed first; the features are passed without copying);
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
//
// # Metrics
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
//   - actions/persist|refine|concede are shares of rows in [0, 1].
//
// On a *NonFiniteError the returned Metrics hold the reward, advantage and
// action statistics and zero elsewhere (so they still encode as JSON); on
// other errors they are zero.
//
// # Precision
//
// Rewards, advantages and metrics are float64. The network, the batch the
// backend sees and the gradients are float32 (nn's training fast path);
// advantages and behaviour log-probabilities are rounded to float32 there.
// The reference and behaviour log-probabilities come from the backend's
// batched forward pass when it is a Forwarder (KernelBackend and
// autodiff.Engine are), else from the arithmetic of nn.MLP.Logits (float64
// sums, float32 between layers), row by row; nn.LogSoftmaxTo either way.
//
// # Training loops
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
//     (PPO's target_kl; design §4's KL to π_ref is a loss term, not a stop);
//   - the learning rate follows RLConfig.Schedule by the share of the run
//     done (RL.Progress), after a linear warm-up in steps;
//   - a step with a non-finite loss or gradient is skipped and counted;
//     Config.MaxBadSteps in a row stop training (ErrTooManyBadSteps).
//
// Online, RL.Iterate plays an env.Env with the current policy (the
// iteration's tasks drawn by IterTasks from (seed, iteration), so a resumed
// run replays the same iterations), rewards the episodes (data.Decisions)
// and updates. Offline, Dataset streams rollout files or a pack chunk by
// chunk; each chunk is a rollout batch.
//
// # Above this package
//
// A whole training run — supervised stage, RL, checkpoints and resume, the
// metrics log, the final evaluation, in a directory or in memory — is
// package trainer/run (what mpdf train and mpdf study call). Teachers that
// label decisions by searching the replay in hindsight are package
// trainer/teacher; they plug into a run as its run.Teacher.
package trainer
