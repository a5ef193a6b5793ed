package trainer

// Precision.
//
// Rewards, advantages and metrics are float64. The network, the batch the
// backend sees and the gradients are float32 (nn's training fast path);
// advantages and behaviour log-probabilities are rounded to float32 there.
// The reference and behaviour log-probabilities come from the backend's
// batched forward pass when it is a Forwarder (KernelBackend and
// autodiff.Engine are), else from the arithmetic of nn.MLP.Logits (float64
// sums, float32 between layers), row by row; nn.LogSoftmaxTo either way.

import (
	"fmt"
	"math"

	"github.com/mpdf/mpdf/nn"
)

// forward evaluates an MLP one row at a time into reusable buffers, with the
// arithmetic of nn.MLP.Logits (float64 sums, float32 between layers), so it
// gives the same bits without allocating per row.
type forward struct{ h, next []float32 }

// logits returns m's output for the row x; it aliases f's buffers and is
// valid until the next call.
func (f *forward) logits(m *nn.MLP[float32], x []float32) []float32 {
	if m.Attn > 0 { // nn's attention loops, which Logits runs
		f.h = grow(f.h, m.Out())
		m.Logits(f.h, x)
		return f.h
	}
	f.h = append(f.h[:0], x...)
	last := m.Layers() - 1
	for l := 0; l <= last; l++ {
		w, b := m.Weight(l), m.Bias(l)
		in, out := m.Sizes[l], m.Sizes[l+1]
		f.next = grow(f.next, out)
		h := f.h[:in]
		for o := range out {
			s := float64(b[o])
			for k, v := range w[o*in : (o+1)*in] {
				s += float64(v) * float64(h[k])
			}
			if l < last {
				if m.Act == nn.ReLU {
					s = max(s, 0)
				} else {
					s = math.Tanh(s)
				}
			}
			f.next[o] = float32(s)
		}
		f.h, f.next = f.next, f.h
	}
	return f.h
}

// logProbsTo writes log π(·|x) of m for the row x into dst (len NumActions).
func (f *forward) logProbsTo(dst []float32, m *nn.MLP[float32], x []float32) {
	nn.LogSoftmaxTo(dst, f.logits(m, x))
}

// Forwarder is implemented by backends that compute a batch of logits at
// once (the nn kernels, the Gorgonia graph). The Stepper then computes
// reference and behaviour log-probabilities with it instead of row by row.
type Forwarder interface {
	Forward(logits []float32, m *nn.MLP[float32], x []float32) error
}

// LogProber is implemented by backends that compute a batch of
// log-probabilities log softmax(logits) at once, with the bits of Forward
// followed by nn.LogSoftmaxTo on each row (the nn kernels).
type LogProber interface {
	LogProbs(dst []float32, m *nn.MLP[float32], x []float32) error
}

// logProbsTo writes log π(·|x) of m for every row of x (B×F) into dst
// (B×NumActions), batched through the backend when it is a LogProber or a
// Forwarder.
func (s *Stepper) logProbsTo(dst []float32, m *nn.MLP[float32], x []float32) error {
	if lp, ok := s.backend.(LogProber); ok {
		if err := lp.LogProbs(dst, m, x); err != nil {
			return fmt.Errorf("trainer: log-probabilities: %w", err)
		}
		return nil
	}
	f, ok := s.backend.(Forwarder)
	if !ok {
		F := m.In()
		for i := 0; i < len(dst)/nn.NumActions; i++ {
			s.fwd.logProbsTo(dst[i*nn.NumActions:(i+1)*nn.NumActions], m, x[i*F:(i+1)*F])
		}
		return nil
	}
	if err := f.Forward(dst, m, x); err != nil {
		return fmt.Errorf("trainer: forward: %w", err)
	}
	for i := 0; i < len(dst); i += nn.NumActions {
		row := dst[i : i+nn.NumActions]
		nn.LogSoftmaxTo(row, row)
	}
	return nil
}

// PolicyLogProbsTo writes into dst the current policy's log π(a|x) for each
// row of features (B×F) and its action. Call it before the first of several
// steps over the same rollout to fix the behaviour log-probabilities for all
// of them (Samples.LogProb); a Step with absent ones uses the policy as it is
// at the start of that step.
func (s *Stepper) PolicyLogProbsTo(dst []float64, features []float32, actions []uint8) error {
	return s.NetsLogProbsTo(dst, features, actions, nil)
}

// NetsLogProbsTo is PolicyLogProbsTo with each row read by its network
// (nets as Samples.Nets).
func (s *Stepper) NetsLogProbsTo(dst []float64, features []float32, actions []uint8, nets []int32) error {
	n, F := len(actions), s.policy.In()
	if err := s.checkNets(nets, n); err != nil {
		return err
	}
	switch {
	case len(dst) != n:
		return fmt.Errorf("trainer: logprobs: len(dst)=%d for %d actions", len(dst), n)
	case len(features) != n*F:
		return fmt.Errorf("trainer: logprobs: %d feature values for %d rows of width %d", len(features), n, F)
	}
	for i, a := range actions {
		if a >= nn.NumActions {
			return fmt.Errorf("trainer: logprobs: row %d: action %d outside [0, %d)", i, a, nn.NumActions)
		}
	}
	if err := checkFeatures(features, F); err != nil {
		return err
	}
	s.all = grow(s.all, n*nn.NumActions)
	if err := s.netLogProbsTo(s.all, features, nets); err != nil {
		return err
	}
	for i, a := range actions {
		v := float64(s.all[i*nn.NumActions+int(a)])
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return &NonFiniteError{What: "policy log-probability", Index: i, Value: v}
		}
		dst[i] = v
	}
	return nil
}
