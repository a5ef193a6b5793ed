package nn

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Float is the element type of parameters, activations and gradients.
type Float interface{ ~float32 | ~float64 }

// Activation is the hidden-layer nonlinearity. The output layer is linear.
type Activation uint8

const (
	Tanh Activation = iota
	ReLU
)

func (a Activation) String() string {
	switch a {
	case Tanh:
		return "tanh"
	case ReLU:
		return "relu"
	}
	return fmt.Sprintf("Activation(%d)", uint8(a))
}

// MarshalText implements encoding.TextMarshaler.
func (a Activation) MarshalText() ([]byte, error) {
	if a > ReLU {
		return nil, fmt.Errorf("nn: unknown activation %d", uint8(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText implements encoding.TextUnmarshaler.
func (a *Activation) UnmarshalText(b []byte) error {
	v, err := ParseActivation(string(b))
	if err == nil {
		*a = v
	}
	return err
}

// ParseActivation parses "tanh" or "relu".
func ParseActivation(s string) (Activation, error) {
	switch s {
	case "tanh":
		return Tanh, nil
	case "relu":
		return ReLU, nil
	}
	return 0, fmt.Errorf("nn: unknown activation %q (want tanh or relu)", s)
}

// MLP is a fully connected network Sizes[0] → ... → Sizes[len-1] with the
// hidden activation Act and a linear output layer. See the package doc for the
// layout of Params.
type MLP[T Float] struct {
	Sizes  []int
	Act    Activation
	Params []T
	// Attn is the width d of an attention front over peer slots
	// (attention.go), 0 for a plain MLP: with it the network reads AttnIn
	// features and Sizes[0] = AttnSelf + d.
	Attn int
}

// NewMLP returns an MLP with the given sizes and zero parameters. It needs at
// least an input and an output size, all positive.
func NewMLP[T Float](sizes []int, act Activation) (*MLP[T], error) {
	n, err := NumParams(sizes)
	if err != nil {
		return nil, err
	}
	if act > ReLU {
		return nil, fmt.Errorf("nn: unknown activation %d", uint8(act))
	}
	return &MLP[T]{Sizes: append([]int(nil), sizes...), Act: act, Params: make([]T, n)}, nil
}

// NumParams is the length of the flat parameter slice of an MLP with these sizes.
func NumParams(sizes []int) (int, error) {
	if len(sizes) < 2 {
		return 0, fmt.Errorf("nn: an MLP needs at least 2 sizes, got %d", len(sizes))
	}
	n := 0
	for i, s := range sizes {
		if s <= 0 {
			return 0, fmt.Errorf("nn: size %d is %d, want > 0", i, s)
		}
		if i > 0 {
			n += sizes[i-1]*s + s
		}
	}
	return n, nil
}

// Layers is the number of linear layers.
func (m *MLP[T]) Layers() int { return len(m.Sizes) - 1 }

// In and Out are the input and output widths.
func (m *MLP[T]) In() int {
	if m.Attn > 0 {
		return AttnIn
	}
	return m.Sizes[0]
}
func (m *MLP[T]) Out() int { return m.Sizes[len(m.Sizes)-1] }

// Weight returns layer i's [out, in] row-major weight matrix, aliasing Params.
func (m *MLP[T]) Weight(i int) []T { return LayerWeight(m.Sizes, m.head(m.Params), i) }

// Bias returns layer i's bias vector, aliasing Params.
func (m *MLP[T]) Bias(i int) []T { return LayerBias(m.Sizes, m.head(m.Params), i) }

// LayerWeight returns the slice of flat (laid out like MLP.Params) holding
// layer i's weights; it serves gradients and Adam moments too.
func LayerWeight[T Float](sizes []int, flat []T, i int) []T {
	off := layerOffset(sizes, i)
	return flat[off : off+sizes[i]*sizes[i+1] : off+sizes[i]*sizes[i+1]]
}

// LayerBias returns the slice of flat holding layer i's biases.
func LayerBias[T Float](sizes []int, flat []T, i int) []T {
	off := layerOffset(sizes, i) + sizes[i]*sizes[i+1]
	return flat[off : off+sizes[i+1] : off+sizes[i+1]]
}

func layerOffset(sizes []int, i int) int {
	off := 0
	for l := 0; l < i; l++ {
		off += sizes[l]*sizes[l+1] + sizes[l+1]
	}
	return off
}

// Clone returns a deep copy.
func (m *MLP[T]) Clone() *MLP[T] {
	return &MLP[T]{Sizes: append([]int(nil), m.Sizes...), Act: m.Act, Params: append([]T(nil), m.Params...), Attn: m.Attn}
}

// Init draws the parameters as PyTorch's nn.Linear does by default:
// weights and biases uniform in ±1/sqrt(fan_in), from a PCG seeded by seed.
// The same seed gives the same parameters on every machine.
func (m *MLP[T]) Init(seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 0x6d706466)) // "mpdf"
	for i := 0; i < m.Layers(); i++ {
		bound := 1 / math.Sqrt(float64(m.Sizes[i]))
		for j, w := 0, m.Weight(i); j < len(w); j++ {
			w[j] = T((2*rng.Float64() - 1) * bound)
		}
		for j, b := 0, m.Bias(i); j < len(b); j++ {
			b[j] = T((2*rng.Float64() - 1) * bound)
		}
	}
	if m.Attn > 0 {
		m.initAttn(rng)
	}
}

// Convert returns a copy of m with parameters of another precision.
func Convert[U, T Float](m *MLP[T]) *MLP[U] {
	out := &MLP[U]{Sizes: append([]int(nil), m.Sizes...), Act: m.Act, Params: make([]U, len(m.Params)), Attn: m.Attn}
	for i, v := range m.Params {
		out.Params[i] = U(v)
	}
	return out
}

// Logits computes the output of m for one input row x into dst (len Out()).
// It is the plain reference forward pass, used for single observations at
// decision time; batched training uses the kernels.
func (m *MLP[T]) Logits(dst, x []T) {
	if len(x) != m.In() || len(dst) != m.Out() {
		panic(fmt.Sprintf("nn: Logits: len(x)=%d len(dst)=%d, want %d and %d", len(x), len(dst), m.In(), m.Out()))
	}
	if m.Attn > 0 {
		m.attnLogits(dst, x)
		return
	}
	h := append([]T(nil), x...)
	for i := 0; i < m.Layers(); i++ {
		w, b := m.Weight(i), m.Bias(i)
		in, out := m.Sizes[i], m.Sizes[i+1]
		next := make([]T, out)
		for o := 0; o < out; o++ {
			s := float64(b[o])
			for k := 0; k < in; k++ {
				s += float64(w[o*in+k]) * float64(h[k])
			}
			if i < m.Layers()-1 {
				s = activate(m.Act, s)
			}
			next[o] = T(s)
		}
		h = next
	}
	copy(dst, h)
}

func activate(a Activation, x float64) float64 {
	if a == ReLU {
		return max(x, 0)
	}
	return math.Tanh(x)
}

// maxSumExp returns the largest of z (len ≥ 1) and Σ exp(z − max), in
// float64: the stable pieces of a softmax of any width.
func maxSumExp[T Float](z []T) (mx, sum float64) {
	mx = float64(z[0])
	for _, v := range z[1:] {
		mx = max(mx, float64(v))
	}
	for _, v := range z {
		sum += math.Exp(float64(v) - mx)
	}
	return mx, sum
}

// LogSoftmaxTo writes log softmax(logits) into dst, stably.
func LogSoftmaxTo[T Float](dst, logits []T) {
	mx, s := maxSumExp(logits)
	lse := mx + math.Log(s)
	for i, v := range logits {
		dst[i] = T(float64(v) - lse)
	}
}
