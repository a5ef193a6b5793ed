package trainer

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/autodiff"
	"github.com/mpdf/mpdf/nn"
)

// netsStepper is a Stepper of three networks (two added, all perturbed
// apart) over backend be, and a batch whose rows name them, with every
// behaviour log-probability and advantage given, so that the loss is a
// function of the parameters alone.
func netsStepper(t *testing.T, be Backend) (*Stepper, *Samples) {
	t.Helper()
	s := newTestStepper(t, be, StepConfig{Adam: nn.DefaultAdam()})
	for range 2 {
		if _, err := s.AddNet(); err != nil {
			t.Fatal(err)
		}
	}
	rng := rand.New(rand.NewPCG(7, 7))
	for _, m := range s.Nets() {
		for i := range m.Params {
			m.Params[i] += float32(0.3 * rng.NormFloat64())
		}
	}
	const B = 23
	sm := testSamples(rng, s, B)
	sm.Nets = make([]int32, B)
	sm.Adv = make([]float64, B)
	for i := range B {
		sm.Nets[i] = int32(rng.IntN(3))
		sm.Adv[i] = rng.NormFloat64()
		if math.IsNaN(sm.LogProb[i]) {
			sm.LogProb[i] = -1.1 + 0.2*rng.Float64()
		}
	}
	return s, sm
}

// jointLoss is the batch's loss computed row by row, each by its own
// network in float64 (refBackend): the definition the several-network
// step must differentiate.
func jointLoss(s *Stepper, sm *Samples) float64 {
	rb := refBackend{cfg: nn.DefaultLoss()}
	ref := toNet(s.ref)
	sum := 0.0
	for i := range sm.Len() {
		x := sm.Features[i*testF : (i+1)*testF]
		hs := ref.forward(row64(x, 0, testF))
		rl := logSoftmax(hs[len(hs)-1])
		b := nn.Batch[float32]{X: x, Actions: sm.Actions[i : i+1], Adv: []float32{float32(sm.Adv[i])},
			BehLogp: []float32{float32(sm.LogProb[i])}, RefLogp: []float32{float32(rl[0]), float32(rl[1]), float32(rl[2])}}
		st := rb.loss64(nil, toNet(s.nets[sm.Nets[i]]), &b)
		sum += st.Loss
	}
	return sum / float64(sm.Len())
}

// Each backend's gradient of several networks is the gradient of the joint
// loss (every row by its own network, the batch mean), checked against
// central finite differences of jointLoss on parameters of every network;
// the loss it reports is the joint loss.
func TestNetsStepGradient(t *testing.T) {
	sizes := []int{testF, 8, 3}
	kern, err := NewKernelBackend(sizes, nn.Tanh, nn.DefaultLoss(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer kern.Close()
	graph, err := autodiff.New[float32](sizes, nn.Tanh, nn.DefaultLoss())
	if err != nil {
		t.Fatal(err)
	}
	defer graph.Close()
	for name, be := range map[string]Backend{"reference": refBackend{cfg: nn.DefaultLoss()}, "kernel": kern, "gorgonia": graph} {
		t.Run(name, func(t *testing.T) {
			s, sm := netsStepper(t, be)
			before := append([]float32(nil), s.params()...)
			mt, err := s.Step(sm, 0) // lr 0: the gradient is left in s.grad, nothing moves
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range s.params() {
				if v != before[i] {
					t.Fatalf("parameter %d moved at lr 0", i)
				}
			}
			if want := jointLoss(s, sm); math.Abs(mt.Loss-want) > 1e-5 {
				t.Errorf("loss %v, joint loss %v", mt.Loss, want)
			}
			n := len(s.policy.Params)
			for k := range 3 {
				for _, j := range []int{0, 5, n - 1, n / 2} {
					p := &s.nets[k].Params[j]
					old := *p
					const h = 1e-2
					*p = old + h
					up := jointLoss(s, sm)
					*p = old - h
					down := jointLoss(s, sm)
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

// Networks of equal weights give the shared network's loss and, summed,
// its gradient: the split into per-network slices changes nothing but
// where each row's gradient goes.
func TestNetsEqualWeightsAreShared(t *testing.T) {
	kern, err := NewKernelBackend([]int{testF, 8, 3}, nn.Tanh, nn.DefaultLoss(), 2)
	if err != nil {
		t.Fatal(err)
	}
	defer kern.Close()
	s, sm := netsStepper(t, kern)
	for _, m := range s.Nets()[1:] {
		copy(m.Params, s.policy.Params)
	}
	one := newTestStepper(t, kern, StepConfig{Adam: nn.DefaultAdam()})
	copy(one.policy.Params, s.policy.Params)
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
	if math.Abs(a.Loss-b.Loss) > 1e-6 || math.Abs(a.KL-b.KL) > 1e-6 || math.Abs(a.ClipLow-b.ClipLow) > 1e-12 || math.Abs(a.ClipHigh-b.ClipHigh) > 1e-12 {
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

// A network added starts at the reference and its rows move it; a row
// naming a network the Stepper lacks is refused by row.
func TestAddNet(t *testing.T) {
	s := newTestStepper(t, refBackend{cfg: nn.DefaultLoss()}, StepConfig{Adam: nn.DefaultAdam()})
	k, err := s.AddNet()
	if err != nil || k != 1 {
		t.Fatalf("AddNet = %d, %v", k, err)
	}
	for i, v := range s.nets[1].Params {
		if v != s.ref.Params[i] {
			t.Fatalf("new network parameter %d is %v, the reference's %v", i, v, s.ref.Params[i])
		}
	}
	p0 := append([]float32(nil), s.nets[0].Params...)
	p1 := append([]float32(nil), s.nets[1].Params...)
	sm := testSamples(rand.New(rand.NewPCG(1, 2)), s, 8)
	sm.Nets = make([]int32, 8)
	for i := range sm.Nets {
		sm.Nets[i] = 1 // every row network 1's: network 0 stays put
	}
	if _, err := s.Step(sm, 1e-2); err != nil {
		t.Fatal(err)
	}
	for i := range p0 {
		if s.nets[0].Params[i] != p0[i] {
			t.Fatalf("network 0 moved without rows")
		}
	}
	moved := false
	for i := range p1 {
		moved = moved || s.nets[1].Params[i] != p1[i]
	}
	if !moved {
		t.Error("network 1 did not move")
	}
	sm.Nets[3] = 2
	if _, err := s.Step(sm, 1e-2); err == nil {
		t.Error("a row naming network 2 of 2 was accepted")
	}
}
