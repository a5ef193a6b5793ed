package trainer

// Several networks (design §4, decoupled agents).
//
// A Stepper trains one network, or, once AddNet has been called, several
// of the same shape: one per agent slot or model. Each row of a batch
// names its network (Samples.Nets). The loss is the batch mean over every
// row, each row's term computed by its own network, so the gradient of
// network k is (B_k/B) times the gradient of the mean over its B_k rows:
// the backend computes each network's slice of the batch through its
// existing fused step, and the slice's gradient is scaled by B_k/B. The
// networks' parameters are views of one flat vector, so the global
// gradient-norm clip and the Adam update run over all of them at once —
// exactly what one optimiser over a module holding K sub-networks does in
// PyTorch (oracle/torch_reference.py step --nets). With one network none
// of this runs: the path and its bytes are the shared policy's.

import (
	"fmt"
	"slices"

	"github.com/mpdf/mpdf/nn"
)

// NumNets is the number of networks the Stepper trains.
func (s *Stepper) NumNets() int { return len(s.nets) }

// Nets are the networks, in order; Nets()[0] is Policy(). Their parameters
// are updated in place by every step.
func (s *Stepper) Nets() []*nn.MLP[float32] { return s.nets }

// AddNet adds a network, a copy of the frozen reference (the policy every
// network starts from), with zero optimiser moments, and returns its index.
// A network added after some steps is the one it would have been had it
// been there from the start: until a row names it its gradient is zero, so
// its Adam moments stay zero and its weights the reference's.
func (s *Stepper) AddNet() (int, error) {
	n := len(s.policy.Params)
	if len(s.nets) == 1 {
		s.flat = slices.Clone(s.policy.Params)
	}
	s.flat = append(s.flat, s.ref.Params...)
	s.nets = append(s.nets, &nn.MLP[float32]{Sizes: slices.Clone(s.policy.Sizes), Act: s.policy.Act, Attn: s.policy.Attn})
	for k, m := range s.nets {
		m.Params = s.flat[k*n : (k+1)*n : (k+1)*n]
	}
	s.adam.M = append(s.adam.M, make([]float32, n)...)
	s.adam.V = append(s.adam.V, make([]float32, n)...)
	s.grad = make([]float32, len(s.flat))
	return len(s.nets) - 1, nil
}

// params is the flat vector of every network's parameters.
func (s *Stepper) params() []float32 {
	if len(s.nets) == 1 {
		return s.policy.Params
	}
	return s.flat
}

// checkNets reports a row naming a network the Stepper does not have.
func (s *Stepper) checkNets(nets []int32, rows int) error {
	if nets == nil {
		return nil
	}
	if len(nets) != rows {
		return fmt.Errorf("trainer: samples: %d network indices for %d rows (nil when one network)", len(nets), rows)
	}
	for i, k := range nets {
		if k < 0 || int(k) >= len(s.nets) {
			return fmt.Errorf("trainer: samples: row %d: network %d, the stepper has %d", i, k, len(s.nets))
		}
	}
	return nil
}

// byNet calls fn for every network that has rows in nets, in network
// order, with its rows in batch order. rows is reused.
func (s *Stepper) byNet(nets []int32, fn func(k int, rows []int) error) error {
	for k := range s.nets {
		s.rows = s.rows[:0]
		for i, j := range nets {
			if int(j) == k {
				s.rows = append(s.rows, i)
			}
		}
		if len(s.rows) == 0 {
			continue
		}
		if err := fn(k, s.rows); err != nil {
			return err
		}
	}
	return nil
}

// netLogProbsTo is logProbsTo with each row of x read by its network
// (nets nil: every row by network 0).
func (s *Stepper) netLogProbsTo(dst []float32, x []float32, nets []int32) error {
	if nets == nil || len(s.nets) == 1 {
		return s.logProbsTo(dst, s.policy, x)
	}
	F := s.policy.In()
	return s.byNet(nets, func(k int, rows []int) error {
		s.subX = s.subX[:0]
		for _, i := range rows {
			s.subX = append(s.subX, x[i*F:(i+1)*F]...)
		}
		s.subLp = grow(s.subLp, len(rows)*nn.NumActions)
		if err := s.logProbsTo(s.subLp, s.nets[k], s.subX); err != nil {
			return err
		}
		for j, i := range rows {
			copy(dst[i*nn.NumActions:(i+1)*nn.NumActions], s.subLp[j*nn.NumActions:(j+1)*nn.NumActions])
		}
		return nil
	})
}

// netsLossAndGrad is the backend's loss and gradient over several
// networks: each network's rows of s.batch through the backend into its
// slice of s.grad, scaled by its share of the rows; the statistics are the
// row-weighted means, i.e. those of the whole batch.
//
// The rank-match loss centres within groups, whose rows span the networks:
// its per-row coefficients ∂(B·loss)/∂log π(a_i|x_i) are computed first
// over the whole batch (each row's log-probability by its own network,
// nn.RankMatchCoef), then each network's slice runs with its rows'
// coefficients given (nn.Batch.Coef): the gradient of the one joint
// objective, split by network. Its policy loss is the whole batch's Σe²/B.
func (s *Stepper) netsLossAndGrad(nets []int32) (nn.LossStats, error) {
	var st nn.LossStats
	B := s.batch.Len()
	n := len(s.policy.Params)
	F := s.policy.In()
	b := &s.batch
	var coef []float64
	sq := 0.0
	if s.rankMatch {
		s.all = grow(s.all, B*nn.NumActions)
		if err := s.netLogProbsTo(s.all, b.X, nets); err != nil {
			return st, err
		}
		s.lpa, s.coef = grow(s.lpa, B), grow(s.coef, B)
		for i, a := range b.Actions {
			s.lpa[i] = float64(s.all[i*nn.NumActions+int(a)])
		}
		var err error
		if sq, err = nn.RankMatchCoef(s.coef, s.lpa, b, s.beta); err != nil {
			return st, err
		}
		coef = s.coef
	}
	err := s.byNet(nets, func(k int, rows []int) error {
		sub := &s.sub
		sub.X, sub.Actions, sub.Adv, sub.BehLogp, sub.RefLogp = sub.X[:0], sub.Actions[:0], sub.Adv[:0], sub.BehLogp[:0], sub.RefLogp[:0]
		sub.Coef = nil
		if coef != nil {
			sub.Coef = s.subCoef[:0]
		}
		for _, i := range rows {
			sub.X = append(sub.X, b.X[i*F:(i+1)*F]...)
			sub.Actions = append(sub.Actions, b.Actions[i])
			sub.Adv = append(sub.Adv, b.Adv[i])
			sub.BehLogp = append(sub.BehLogp, b.BehLogp[i])
			sub.RefLogp = append(sub.RefLogp, b.RefLogp[i*nn.NumActions:(i+1)*nn.NumActions]...)
			if coef != nil {
				sub.Coef = append(sub.Coef, coef[i])
			}
		}
		if coef != nil {
			s.subCoef = sub.Coef
		}
		g := s.grad[k*n : (k+1)*n]
		sk, err := s.backend.LossAndGrad(g, s.nets[k], sub)
		if err != nil {
			return err
		}
		w := float64(len(rows)) / float64(B)
		for i := range g {
			g[i] = float32(float64(g[i]) * w)
		}
		st.Loss += w * sk.Loss
		st.PolicyLoss += w * sk.PolicyLoss
		st.KL += w * sk.KL
		st.Entropy += w * sk.Entropy
		st.ClipLow += w * sk.ClipLow
		st.ClipHigh += w * sk.ClipHigh
		return nil
	})
	if s.rankMatch && err == nil {
		st.PolicyLoss = sq / float64(B)
		st.Loss = st.PolicyLoss - s.entropy*st.Entropy
	}
	return st, err
}
