// Package autodiff evaluates the meta-policy network and its training
// losses with Gorgonia's automatic differentiation. It is the reference
// implementation: the hand-written kernels of package nn (forward, SoftRankPO
// loss, backward) are checked against it, and it can train on its own where
// speed does not matter. Gorgonia is imported by this package only.
//
// # What it computes
//
// An Engine is made for one network shape (sizes, activation; the output
// width is nn.NumActions) and one nn.LossConfig. For a model m (an nn.MLP of
// those sizes) it offers
//
//	LossAndGrad     the SoftRankPO loss of design §4, its parts and dLoss/dParams
//	SFTLossAndGrad  the supervised loss, mean of −log π(a|x), and its gradient
//	Forward         the logits, for forward-only benchmarks and checks
//
// Per row, with log π the log-softmax of the logits, a the action taken, b
// the behaviour log-probability and A the advantage:
//
//	ℓ      = clamp(log π(a|x) − b, −20, 20);   ρ = exp(ℓ)
//	L_clip = −min(ρ·A, clip(ρ, 1−ε_low, 1+ε_high)·A)
//	KL     = Σ_a π(a|x) (log π(a|x) − log π_ref(a|x))
//	H      = −Σ_a π(a|x) log π(a|x)
//	loss   = mean over rows of L_clip + β·KL − c_H·H
//
// The stats are the batch means loss, policy_loss (L_clip), kl and entropy,
// and the clip ratios: clip_ratio/low is the share of rows with ρ < 1−ε_low
// and A < 0, clip_ratio/high the share with ρ > 1+ε_high and A > 0 (strict
// inequalities; those are the rows where the clip bounded the objective).
// With LossConfig.Kind nn.LossRankMatch the loss is design §4's rank-matching
// loss instead (graph.go's rankMatch; nn.Batch.Group required), policy_loss
// its mean squared error, and the clip ratios 0.
//
// # Numerics and non-smooth points
//
// The log-softmax subtracts each row's largest logit before exponentiating,
// so logits in the thousands stay finite. log π(a|x) is gathered with a
// one-hot mask of the actions. The piecewise functions are built from
// comparison masks (Gorgonia does not differentiate a comparison), and their
// gradients follow PyTorch exactly, including at the points where the two
// disagree in general:
//
//	clamp(x, lo, hi)  gradient 1 where lo ≤ x ≤ hi, bounds included, else 0
//	                  (torch.clamp; used for ℓ and for the ratio clip)
//	min(x, y)         gradient to the smaller argument; on a tie x = y it is
//	                  split ½ and ½ (torch.minimum)
//	relu(x)           gradient 1[x > 0], so 0 at x = 0 (torch.relu)
//
// Inside the clip range ρ·A and clip(ρ)·A are equal and have equal
// gradients, so the half-and-half split gives the unclipped gradient, as in
// PyTorch. Gorgonia's own MinBetween (all of a tie to the first argument),
// Rectify (gradient 1 at 0), Max and LogSumExp are not used.
//
// # Graphs and their cache
//
// The graph is built feature-major: activations are (width × B), so layer l
// computes W_l·H + b_l with W_l in the [out, in] layout of nn.MLP.Params and
// no transpose. Every (kind, batch size) pair, kind being loss, sft or
// forward, gets its own graph, built and compiled into a TapeMachine on
// first use and kept until Close; the cache grows with the number of
// distinct batch sizes a caller uses. Each input node is bound once to a
// tensor backed by a slice the engine owns, and each output (loss parts, ρ,
// the per-layer gradients, the logits) is copied by a G.Read into another
// such slice. The one-hot action masks and the reference log-probabilities
// enter as one (B) vector per action. Gorgonia turns a row of a (3 × 1)
// matrix into a scalar, so a batch of one row runs on the two-row graph as
// two copies of the row, which leaves every mean and the gradient exactly
// as they are. A call therefore only copies the parameters and the batch into
// the input slices (transposing the features), runs the machine, resets it,
// and copies the results out. Gorgonia allocates intermediate values on
// every run; this package does not try to avoid that.
//
// # Precision
//
// Engine[float32] builds G.Float32 graphs and Engine[float64] G.Float64
// ones, whatever the named type T: values are converted element by element
// on the way in and out. float64 is what gradient checks use.
//
// # Errors and panics
//
// Inputs are checked once at the boundary, before anything runs: the model's
// sizes, activation and parameter count must be the engine's, parameters
// finite, grad of the flat length, the batch valid for nn.Batch.Check (rows,
// feature width, actions in [0, 3), finite values). A bad input returns an
// error and leaves grad untouched. A non-finite loss or gradient (possible
// only with extreme parameters) is returned as an error too; in the second
// case grad has been written. Gorgonia
// reports many graph errors by panicking; graph construction and each run
// recover such panics into errors. The TapeMachine executes its program on a
// goroutine of its own, where a panic could not be recovered by anyone: the
// checks above exist so that nothing shape-dependent can go wrong there.
//
// An Engine is safe for concurrent use; its calls are serialised by a mutex.
// After Close every method returns ErrClosed.
package autodiff
