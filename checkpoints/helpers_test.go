package checkpoints

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// trainState is a miniature training run: a policy, its frozen reference,
// Adam and a PCG that draws the "gradients". step advances it the way a
// trainer would, so that saving and resuming can be compared with running on.
type trainState struct {
	policy, ref *nn.MLP[float32]
	adam        *nn.Adam[float32]
	pcg         *rand.PCG
	step        int64
	seed        uint64
}

func newTrainState(t testing.TB, sizes []int, act nn.Activation, seed uint64) *trainState {
	t.Helper()
	m, err := nn.NewMLP[float32](sizes, act)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(seed)
	return &trainState{policy: m, ref: m.Clone(), adam: nn.NewAdam[float32](nn.DefaultAdam(), len(m.Params)),
		pcg: rand.NewPCG(seed, 99), seed: seed}
}

func (s *trainState) run(steps int) {
	rng := rand.New(s.pcg)
	g := make([]float32, len(s.policy.Params))
	for range steps {
		for i := range g {
			g[i] = float32(rng.NormFloat64())
		}
		s.adam.Update(s.policy.Params, g, 1e-2)
		s.step++
	}
}

func (s *trainState) checkpoint(t testing.TB) *Checkpoint {
	t.Helper()
	rngState, err := s.pcg.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	return &Checkpoint{
		Header: Header{
			FeatureVersion: metapolicy.FeatureVersion,
			Step:           s.step,
			Seed:           s.seed,
			Metrics:        map[string]float64{"loss": 0.5 / float64(s.step+1), "reward": 0.25, "kl": 1e-3},
			Train:          json.RawMessage(`{"lr":0.01,"batch":64,"tau":0.8}`),
			DataPos:        json.RawMessage(`{"epoch":0,"offset":` + itoa(s.step*64) + `}`),
		},
		Policy:    s.policy.Clone(),
		Reference: s.ref.Clone(),
		Adam:      &nn.Adam[float32]{Config: s.adam.Config, M: clone(s.adam.M), V: clone(s.adam.V), Step: s.adam.Step},
		RNG:       rngState,
	}
}

// restore is the inverse of checkpoint: the state a resumed run starts from.
func restore(t testing.TB, c *Checkpoint) *trainState {
	t.Helper()
	pcg := new(rand.PCG)
	if err := pcg.UnmarshalBinary(c.RNG); err != nil {
		t.Fatal(err)
	}
	return &trainState{policy: c.Policy, ref: c.Reference, adam: c.Adam, pcg: pcg, step: c.Header.Step, seed: c.Header.Seed}
}

func sample(t testing.TB) *Checkpoint {
	s := newTrainState(t, []int{6, 8, 3}, nn.Tanh, 1)
	s.run(3)
	return s.checkpoint(t)
}

func clone[T any](s []T) []T { return append([]T(nil), s...) }

func itoa(v int64) string { b, _ := json.Marshal(v); return string(b) }

func mustMarshal(t testing.TB, c *Checkpoint) []byte {
	t.Helper()
	b, err := Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mathFloat32(b uint32) float32 { return math.Float32frombits(b) }
