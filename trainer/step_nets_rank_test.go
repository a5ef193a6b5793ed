package trainer

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/nn"
)

// nnRefBackend is nn's row-by-row float64 reference (nn.LossAndGradRef) as
// a Backend: the rank-match loss, given coefficients included.
type nnRefBackend struct{ cfg nn.LossConfig }

func (r nnRefBackend) LossConfig() nn.LossConfig { return r.cfg }
func (r nnRefBackend) LossAndGrad(grad []float32, m *nn.MLP[float32], b *nn.Batch[float32]) (nn.LossStats, error) {
	return nn.LossAndGradRef(grad, m, b, r.cfg), nil
}
func (r nnRefBackend) SFTLossAndGrad(grad []float32, m *nn.MLP[float32], x []float32, actions []uint8) (float64, error) {
	return nn.SFTLossAndGradRef(grad, m, x, actions), nil
}

// rankNetsCase is a Stepper of three networks of one shape (an MLP, or an
// attention network reading peers-v1 rows) under the rank-match loss, and
// a batch whose groups span the networks, every advantage given.
func rankNetsCase(t *testing.T, be Backend, attn int, sizes []int) (*Stepper, *Samples) {
	t.Helper()
	var pol *nn.MLP[float32]
	var err error
	if attn > 0 {
		pol, err = nn.NewAttention[float32](attn, sizes, nn.Tanh)
	} else {
		pol, err = nn.NewMLP[float32](sizes, nn.Tanh)
	}
	if err != nil {
		t.Fatal(err)
	}
	pol.Init(3)
	ref := pol.Clone()
	s, err := NewStepper(be, pol, ref, StepConfig{Adam: nn.DefaultAdam()})
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := s.AddNet(); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(11, 5))
	for _, m := range s.Nets() { // apart from each other and from π_ref
		for i := range m.Params {
			m.Params[i] += float32(0.3 * rng.NormFloat64())
		}
	}
	const B = 19
	F := pol.In()
	sm := &Samples{Features: make([]float32, B*F), Actions: make([]uint8, B), Rewards: make([]float64, B),
		Groups: make([]string, B), Adv: make([]float64, B), Nets: make([]int32, B)}
	for i := range B {
		x := sm.Features[i*F : (i+1)*F]
		for k := range x {
			x[k] = float32(rng.NormFloat64())
		}
		if attn > 0 { // peers-v1: slot feature 0 says present; two peers
			for j := range nn.AttnSlots {
				slot := x[nn.AttnSelf+j*nn.AttnPeer : nn.AttnSelf+(j+1)*nn.AttnPeer]
				if j < 2 {
					slot[0] = 1
				} else {
					clear(slot)
				}
			}
		}
		sm.Actions[i] = uint8(rng.IntN(3))
		sm.Groups[i] = fmt.Sprint("g", i%4) // groups of 4–5 rows, every one across networks
		sm.Nets[i] = int32(i % 3)
		sm.Adv[i] = rng.NormFloat64()
	}
	sm.Nets[0] = 0 // group g0 holds a row of each network
	return s, sm
}

// jointRankLoss is design §4's rank-match loss of the batch in float64, each
// row's log-probabilities by its own network: h = β(log π_k(a|x) − log
// π_ref(a|x)) centred within the row's group across networks, the mean of
// (h_c − A)², minus c_H times the mean entropy.
func jointRankLoss(s *Stepper, sm *Samples, cfg nn.LossConfig) float64 {
	wide := func(m *nn.MLP[float32]) *nn.MLP[float64] {
		w := &nn.MLP[float64]{Sizes: m.Sizes, Act: m.Act, Attn: m.Attn, Params: make([]float64, len(m.Params))}
		for i, v := range m.Params {
			w.Params[i] = float64(v)
		}
		return w
	}
	logp := func(m *nn.MLP[float64], x []float32) []float64 {
		xx := make([]float64, len(x))
		for i, v := range x {
			xx[i] = float64(v)
		}
		z := make([]float64, nn.NumActions)
		m.Logits(z, xx)
		return logSoftmax(z)
	}
	ref := wide(s.ref)
	F := s.policy.In()
	n := sm.Len()
	h, ent := make([]float64, n), 0.0
	sum, count := map[string]float64{}, map[string]float64{}
	for i := range n {
		x := sm.Features[i*F : (i+1)*F]
		lp, rl := logp(wide(s.nets[sm.Nets[i]]), x), logp(ref, x)
		a := sm.Actions[i]
		h[i] = cfg.Beta * (lp[a] - rl[a])
		sum[sm.Groups[i]] += h[i]
		count[sm.Groups[i]]++
		for _, l := range lp {
			ent -= math.Exp(l) * l
		}
	}
	sq := 0.0
	for i := range n {
		e := h[i] - sum[sm.Groups[i]]/count[sm.Groups[i]] - sm.Adv[i]
		sq += e * e
	}
	return sq/float64(n) - cfg.Entropy*ent/float64(n)
}

// The rank-match loss over several networks is one objective: the group
// centring spans the networks. Each backend's gradient is the gradient of
// jointRankLoss (central finite differences on parameters of every
// network), for MLPs and attention networks, and the loss it reports is
// the joint loss.
func TestNetsRankMatchGradient(t *testing.T) {
	cfg := nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: 0.5, Entropy: 0.01, Kind: nn.LossRankMatch}
	for _, arch := range []struct {
		name  string
		attn  int
		sizes []int
	}{{"mlp", 0, []int{testF, 8, 3}}, {"attention", 4, []int{nn.AttnSelf + 4, 6, 3}}} {
		kern, err := NewKernelBackendAttn(arch.attn, arch.sizes, nn.Tanh, cfg, 2)
		if err != nil {
			t.Fatal(err)
		}
		defer kern.Close()
		var graph *autodiff.Engine[float32]
		if arch.attn > 0 {
			graph, err = autodiff.NewAttention[float32](arch.attn, arch.sizes, nn.Tanh, cfg)
		} else {
			graph, err = autodiff.New[float32](arch.sizes, nn.Tanh, cfg)
		}
		if err != nil {
			t.Fatal(err)
		}
		defer graph.Close()
		for name, be := range map[string]Backend{"reference": nnRefBackend{cfg}, "kernel": kern, "gorgonia": graph} {
			t.Run(arch.name+"/"+name, func(t *testing.T) {
				s, sm := rankNetsCase(t, be, arch.attn, arch.sizes)
				mt, err := s.Step(sm, 0) // lr 0: the gradient stays in s.grad
				if err != nil {
					t.Fatal(err)
				}
				want := jointRankLoss(s, sm, cfg)
				if math.Abs(mt.Loss-want) > 1e-5*(1+math.Abs(want)) {
					t.Errorf("loss %v, joint loss %v", mt.Loss, want)
				}
				n := len(s.policy.Params)
				for k := range 3 {
					for _, j := range []int{0, 3, n / 3, n / 2, n - 1} {
						p := &s.nets[k].Params[j]
						old := *p
						const h = 1e-2
						*p = old + h
						up := jointRankLoss(s, sm, cfg)
						*p = old - h
						down := jointRankLoss(s, sm, cfg)
						*p = old
						fd := (up - down) / (2 * h)
						if g := float64(s.grad[k*n+j]); math.Abs(g-fd) > 2e-4+1e-2*math.Abs(fd) {
							t.Errorf("network %d parameter %d: gradient %v, finite difference %v", k, j, g, fd)
						}
					}
				}
			})
		}
	}
}

// With the networks equal, rank-match over several networks is the shared
// network's step: the same loss, and its gradient split by rows.
func TestNetsRankMatchEqualWeightsAreShared(t *testing.T) {
	cfg := nn.LossConfig{EpsLow: 0.2, EpsHigh: 0.2, Beta: 0.5, Entropy: 0.01, Kind: nn.LossRankMatch}
	sizes := []int{testF, 8, 3}
	kern, err := NewKernelBackend(sizes, nn.Tanh, cfg, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer kern.Close()
	s, sm := rankNetsCase(t, kern, 0, sizes)
	for _, m := range s.Nets()[1:] {
		copy(m.Params, s.policy.Params)
	}
	one, err := NewStepper(kern, s.policy.Clone(), s.ref, StepConfig{Adam: nn.DefaultAdam()})
	if err != nil {
		t.Fatal(err)
	}
	shared := *sm
	shared.Nets = nil
	a, err := s.Step(sm, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, err := one.Step(&shared, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a.Loss-b.Loss) > 1e-6 || math.Abs(a.PolicyLoss-b.PolicyLoss) > 1e-6 || math.Abs(a.KL-b.KL) > 1e-6 {
		t.Errorf("several equal networks: %+v; one: %+v", a, b)
	}
	n := len(one.grad)
	for j := range n {
		sum := s.grad[j] + s.grad[n+j] + s.grad[2*n+j]
		if d := math.Abs(float64(sum - one.grad[j])); d > 1e-5+1e-3*math.Abs(float64(one.grad[j])) {
			t.Fatalf("parameter %d: summed gradient %v, shared %v", j, sum, one.grad[j])
		}
	}
}
