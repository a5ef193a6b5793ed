package trainer

import "github.com/mpdf/mpdf/nn"

// Backend computes the losses of design §4 and their gradients with respect to
// the flat parameters of a policy network. autodiff.Engine[float32] (a
// Gorgonia graph) and the hand-written nn kernels both implement it; the
// Stepper does not care which.
//
// A backend owns its loss coefficients (it is built with an nn.LossConfig),
// so that there is one source of truth for them.
type Backend interface {
	// LossAndGrad writes into grad (len(m.Params)) the gradient of the
	// batch-mean SoftRankPO loss, L_clip + β·KL − c_H·H (or the
	// rank-matching loss, nn.LossRankMatch), with respect to
	// m.Params, and returns the batch means of the loss and its parts. It
	// reads m and b and modifies neither. b has passed nn.Batch.Check.
	LossAndGrad(grad []float32, m *nn.MLP[float32], b *nn.Batch[float32]) (nn.LossStats, error)

	// SFTLossAndGrad writes into grad the gradient of the mean cross-entropy
	// −log π(a|x) over the rows of x (B×m.In(), row-major) labelled with
	// actions, and returns that mean.
	SFTLossAndGrad(grad []float32, m *nn.MLP[float32], x []float32, actions []uint8) (float64, error)
}

// LossConfiger is a Backend that tells its loss configuration. The Stepper
// asks for it to learn whether the loss is nn.LossRankMatch, whose batches
// must carry group indices (nn.Batch.Group); a backend that does not
// implement it gets batches without them, which suits the clip loss.
type LossConfiger interface {
	LossConfig() nn.LossConfig
}
