package trainer

import (
	"fmt"
	"slices"

	"github.com/mpdf/mpdf/nn"
)

// KernelBackend is the default Backend: the hand-written batched kernels of
// package nn. It checks its arguments once here, then calls kernels that
// trust them; its workspace grows to the largest batch it has seen (a
// workspace's memory is a few 64-row tiles per thread, whatever its batch:
// a whole rollout batch's log-probabilities run in one call, loading the
// weights once).
type KernelBackend struct {
	loss    nn.LossConfig
	attn    int // attention width (nn.MLP.Attn); 0 for an MLP
	sizes   []int
	act     nn.Activation
	threads int
	ws      *nn.Workspace[float32]
	cap     int
}

// NewKernelBackend returns a Backend for networks of the given shape, on
// threads goroutines (GOMAXPROCS when ≤ 0).
func NewKernelBackend(sizes []int, act nn.Activation, loss nn.LossConfig, threads int) (*KernelBackend, error) {
	return NewKernelBackendAttn(0, sizes, act, loss, threads)
}

// NewKernelBackendAttn is NewKernelBackend for networks with an attention
// front of width attn (nn.NewAttention; 0: an MLP, as NewKernelBackend).
// Attention networks run on nn's plain-Go attention loops (nn.AttnLossAndGrad)
// on the calling goroutine, not on the workspace's kernels.
func NewKernelBackendAttn(attn int, sizes []int, act nn.Activation, loss nn.LossConfig, threads int) (*KernelBackend, error) {
	if err := loss.Validate(); err != nil {
		return nil, err
	}
	if _, err := nn.ParamCount(sizes, attn); err != nil {
		return nil, err
	}
	return &KernelBackend{loss: loss, attn: attn, sizes: append([]int(nil), sizes...), act: act, threads: threads}, nil
}

// attention checks that m, an attention network, has the backend's shape.
func (k *KernelBackend) attention(m *nn.MLP[float32]) error {
	if m.Attn != k.attn || m.Act != k.act || !slices.Equal(m.Sizes, k.sizes) {
		return fmt.Errorf("trainer: kernel backend built for %v %v (attention width %d), got a network %v %v (%d)", k.sizes, k.act, k.attn, m.Sizes, m.Act, m.Attn)
	}
	if n, _ := nn.ParamCount(k.sizes, k.attn); len(m.Params) != n {
		return fmt.Errorf("trainer: kernel backend: network has %d parameters, its shape needs %d", len(m.Params), n)
	}
	return nil
}

// LossConfig returns the loss configuration the backend was built with.
func (k *KernelBackend) LossConfig() nn.LossConfig { return k.loss }

// Close stops the workspace's workers.
func (k *KernelBackend) Close() {
	if k.ws != nil {
		k.ws.Close()
		k.ws = nil
	}
}

// workspace checks that m has the backend's shape (and as many parameters
// as that shape has: the kernels trust it) and returns a workspace for at
// least rows rows.
func (k *KernelBackend) workspace(m *nn.MLP[float32], rows int) (*nn.Workspace[float32], error) {
	if m.Attn != 0 || k.attn != 0 {
		return nil, k.attention(m) // an attention network has no workspace; callers branch before
	}
	if m.Act != k.act || !slices.Equal(m.Sizes, k.sizes) {
		return nil, fmt.Errorf("trainer: kernel backend built for %v %v, got a network %v %v", k.sizes, k.act, m.Sizes, m.Act)
	}
	if n, _ := nn.NumParams(k.sizes); len(m.Params) != n {
		return nil, fmt.Errorf("trainer: kernel backend: network has %d parameters, its sizes %v need %d", len(m.Params), m.Sizes, n)
	}
	if rows > k.cap {
		k.Close()
		ws, err := nn.NewWorkspace[float32](k.sizes, k.act, rows, k.threads)
		if err != nil {
			return nil, err
		}
		k.ws, k.cap = ws, rows
	}
	return k.ws, nil
}

func checkGrad(grad []float32, m *nn.MLP[float32]) error {
	if len(grad) != len(m.Params) {
		return fmt.Errorf("trainer: kernel backend: %d gradient slots for %d parameters", len(grad), len(m.Params))
	}
	return nil
}

// overwritesGrad reports that LossAndGrad writes every element of grad (the
// workspace's reduceGrad copies each layer's gradient whole), so that the
// Stepper need not zero it first; an attention network's loops are left
// the zeroed buffer.
func (k *KernelBackend) overwritesGrad() bool { return k.attn == 0 }

var _ gradOverwriter = (*KernelBackend)(nil)

// LossAndGrad checks b's shape, which the kernels rely on; its values have
// passed nn.Batch.Check (Backend's contract), and are not scanned again.
func (k *KernelBackend) LossAndGrad(grad []float32, m *nn.MLP[float32], b *nn.Batch[float32]) (nn.LossStats, error) {
	if err := b.CheckShape(m.In()); err != nil {
		return nn.LossStats{}, err
	}
	if err := checkGrad(grad, m); err != nil {
		return nn.LossStats{}, err
	}
	if k.loss.RankMatch() && b.Coef == nil && len(b.Group) != b.Len() {
		return nn.LossStats{}, fmt.Errorf("trainer: kernel backend: the rank-match loss needs a group index per row, got %d for %d rows", len(b.Group), b.Len())
	}
	if k.attn > 0 {
		if err := k.attention(m); err != nil {
			return nn.LossStats{}, err
		}
		return nn.AttnLossAndGrad(grad, m, b, k.loss), nil
	}
	ws, err := k.workspace(m, b.Len())
	if err != nil {
		return nn.LossStats{}, err
	}
	return ws.LossAndGrad(grad, m, b, k.loss), nil
}

func (k *KernelBackend) SFTLossAndGrad(grad []float32, m *nn.MLP[float32], x []float32, actions []uint8) (float64, error) {
	n := len(actions)
	if n == 0 || len(x) != n*m.In() {
		return 0, fmt.Errorf("trainer: kernel backend: %d feature values for %d rows of width %d", len(x), n, m.In())
	}
	for i, a := range actions {
		if a >= nn.NumActions {
			return 0, fmt.Errorf("trainer: kernel backend: row %d: action %d outside [0, %d)", i, a, nn.NumActions)
		}
	}
	if err := checkGrad(grad, m); err != nil {
		return 0, err
	}
	if k.attn > 0 {
		if err := k.attention(m); err != nil {
			return 0, err
		}
		return nn.AttnSFTLossAndGrad(grad, m, x, actions), nil
	}
	ws, err := k.workspace(m, n)
	if err != nil {
		return 0, err
	}
	return ws.SFTLossAndGrad(grad, m, x, actions), nil
}

// Forward writes the logits of the rows of x; it makes KernelBackend a
// Forwarder, so the Stepper's log-probabilities are batched too.
func (k *KernelBackend) Forward(logits []float32, m *nn.MLP[float32], x []float32) error {
	in, out := m.In(), m.Out()
	n := len(x) / max(1, in)
	if n == 0 || len(x) != n*in || len(logits) != n*out {
		return fmt.Errorf("trainer: kernel backend: forward of %d values into %d logits for widths %d→%d", len(x), len(logits), in, out)
	}
	if k.attn > 0 {
		if err := k.attention(m); err != nil {
			return err
		}
		nn.ForwardRef(logits, m, x) // the attention loops (nn/attention.go)
		return nil
	}
	ws, err := k.workspace(m, n)
	if err != nil {
		return err
	}
	ws.ForwardTo(logits, m, x)
	return nil
}

// LogProbs writes log π(·|x) of m for the rows of x; it makes KernelBackend
// a LogProber, so the Stepper's log-probabilities run on the workers whole.
func (k *KernelBackend) LogProbs(dst []float32, m *nn.MLP[float32], x []float32) error {
	in, out := m.In(), m.Out()
	n := len(x) / max(1, in)
	if n == 0 || len(x) != n*in || len(dst) != n*out {
		return fmt.Errorf("trainer: kernel backend: log-probabilities of %d values into %d for widths %d→%d", len(x), len(dst), in, out)
	}
	if k.attn > 0 {
		if err := k.attention(m); err != nil {
			return err
		}
		nn.ForwardRef(dst, m, x)
		for r := range n {
			nn.LogSoftmaxTo(dst[r*out:(r+1)*out], dst[r*out:(r+1)*out])
		}
		return nil
	}
	ws, err := k.workspace(m, n)
	if err != nil {
		return err
	}
	ws.LogProbsTo(dst, m, x)
	return nil
}
