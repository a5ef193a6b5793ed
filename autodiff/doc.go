// Package autodiff evaluates the meta-policy network and its training
// losses with Gorgonia's automatic differentiation. It is the reference
// implementation: the hand-written kernels of package nn (forward, SoftRankPO
// loss, backward) are checked against it, and it can train on its own where
// speed does not matter. Gorgonia is imported by this package only.
//
// # What it computes
//
// An [Engine] is made for one network shape (sizes, activation; the output
// width is nn.NumActions) and one nn.LossConfig ([New]). For a model m (an
// nn.MLP of those sizes) it offers
//
//	LossAndGrad     the SoftRankPO loss of design §4, its parts and dLoss/dParams
//	SFTLossAndGrad  the supervised loss, mean of −log π(a|x), and its gradient
//	Forward         the logits, for forward-only benchmarks and checks
//
// An Engine[float32] is a trainer.Backend, so a run can train on it
// ([Engine.LossAndGrad]):
//
//	e, err := autodiff.New[float64](m.Sizes, m.Act, nn.DefaultLoss())
//	defer e.Close()
//	stats, err := e.LossAndGrad(grad, m, batch)
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
// # Precision
//
// Engine[float32] builds G.Float32 graphs and Engine[float64] G.Float64
// ones, whatever the named type T: values are converted element by element
// on the way in and out. float64 is what gradient checks use.
//
// # Errors
//
// Inputs are checked once at the boundary, before anything runs; a bad
// input returns an error and leaves grad untouched. A non-finite loss or
// gradient is an error too. Gorgonia's panics are recovered into errors.
// The numerics at non-smooth points (they follow PyTorch), the graph cache
// and the error rules in full are beside their code: ops.go, graph.go,
// engine.go.
//
// An Engine is safe for concurrent use; its calls are serialised by a mutex.
// After [Engine.Close] every method returns [ErrClosed].
package autodiff
