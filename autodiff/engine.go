package autodiff

// Errors and panics.
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

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"sync"

	"github.com/mpdf/mpdf/nn"
	G "gorgonia.org/gorgonia"
	"gorgonia.org/tensor"
)

// ErrClosed is returned by every method of an Engine after Close.
var ErrClosed = errors.New("autodiff: engine is closed")

// Engine evaluates the meta-policy MLP, the SoftRankPO loss and the
// supervised loss with Gorgonia, for one network shape and one loss
// configuration. It compiles one graph per (loss kind, batch size) on first
// use and reuses it afterwards. An Engine is safe for concurrent use; calls
// are serialised.
type Engine[T nn.Float] struct {
	mu     sync.Mutex
	sizes  []int
	attn   int // attention width (nn.MLP.Attn), 0 for a plain MLP
	act    nn.Activation
	cfg    nn.LossConfig
	dt     tensor.Dtype
	nparam int
	graphs map[key]*graph
	closed bool
}

// New returns an engine for MLPs of the given sizes and activation and for
// the loss cfg. The output width must be nn.NumActions.
func New[T nn.Float](sizes []int, act nn.Activation, loss nn.LossConfig) (*Engine[T], error) {
	return NewAttention[T](0, sizes, act, loss)
}

// NewAttention returns an engine for networks with an attention front of
// width attn (nn.NewAttention; 0: a plain MLP, as New) over the layers
// sizes: the graph computes the front (graph.go's attention), the layers
// and the loss, and the gradient of every parameter.
func NewAttention[T nn.Float](attn int, sizes []int, act nn.Activation, loss nn.LossConfig) (*Engine[T], error) {
	n, err := nn.ParamCount(sizes, attn)
	if err != nil {
		return nil, fmt.Errorf("autodiff: %w", err)
	}
	if sizes[len(sizes)-1] != nn.NumActions {
		return nil, fmt.Errorf("autodiff: output width %d, want %d actions", sizes[len(sizes)-1], nn.NumActions)
	}
	if act > nn.ReLU {
		return nil, fmt.Errorf("autodiff: unknown activation %d", uint8(act))
	}
	if err := loss.Validate(); err != nil {
		return nil, fmt.Errorf("autodiff: %w", err)
	}
	dt := G.Float64
	if reflect.TypeFor[T]().Kind() == reflect.Float32 {
		dt = G.Float32
	}
	return &Engine[T]{
		sizes:  slices.Clone(sizes),
		attn:   attn,
		act:    act,
		cfg:    loss,
		dt:     dt,
		nparam: n,
		graphs: make(map[key]*graph),
	}, nil
}

// LossAndGrad computes the SoftRankPO loss of design §4, the batch mean of
// L_clip + β·KL − c_H·H, for m's parameters on b, writes dLoss/dParams into
// grad (the flat layout of nn.MLP.Params) and returns the loss, its parts
// and the clip ratios: clip_ratio/low is the share of rows with ρ < 1−ε_low
// and A < 0, clip_ratio/high the share with ρ > 1+ε_high and A > 0. With
// the rank-matching loss (nn.LossRankMatch; b.Group required) it is the
// batch mean of (h_c − A)² − c_H·H instead, and the clip ratios are 0.
func (e *Engine[T]) LossAndGrad(grad []T, m *nn.MLP[T], b *nn.Batch[T]) (nn.LossStats, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.check(m, grad, true); err != nil {
		return nn.LossStats{}, err
	}
	if b == nil {
		return nn.LossStats{}, errors.New("autodiff: nil batch")
	}
	if err := b.Check(e.in()); err != nil {
		return nn.LossStats{}, fmt.Errorf("autodiff: %w", err)
	}
	B := b.Len()
	k := kindLoss
	if e.cfg.RankMatch() && b.Coef != nil {
		k = kindCoef
	}
	gr, err := e.graph(k, graphRows(B))
	if err != nil {
		return nn.LossStats{}, err
	}
	e.loadParams(gr, m)
	loadT(gr.x, b.X, B, e.in(), gr.batch)
	loadActions(gr, b.Actions)
	loadRows(gr.adv, b.Adv)
	if k == kindCoef {
		for r := range gr.batch {
			gr.adv.set(r, b.Coef[r%B])
		}
	} else if e.cfg.RankMatch() {
		if err := loadCenter(gr, b.Group, B); err != nil {
			return nn.LossStats{}, err
		}
	} else {
		loadRows(gr.beh, b.BehLogp)
	}
	for r := range gr.batch {
		for a := range nn.NumActions {
			gr.ref[a].set(r, float64(b.RefLogp[(r%B)*nn.NumActions+a]))
		}
	}
	if err := gr.run(); err != nil {
		return nn.LossStats{}, err
	}

	var st nn.LossStats
	if k == kindCoef { // the squared errors are the caller's (nn.Batch.Coef)
		st.KL, st.Entropy = scalarOf(gr.kl), scalarOf(gr.entropy)
		st.Loss = -e.cfg.Entropy * st.Entropy
	} else {
		st = nn.LossStats{
			Loss:       scalarOf(gr.loss),
			PolicyLoss: scalarOf(gr.policy),
			KL:         scalarOf(gr.kl),
			Entropy:    scalarOf(gr.entropy),
		}
	}
	lo, hi := 1-e.cfg.EpsLow, 1+e.cfg.EpsHigh
	if e.cfg.RankMatch() {
		b = &nn.Batch[T]{} // no ratio, no clip: the clip ratios stay 0
	}
	for i, a := range b.Adv { // the first B rows of the graph are the batch's
		switch r := gr.ratio.at(i); {
		case r < lo && a < 0:
			st.ClipLow++
		case r > hi && a > 0:
			st.ClipHigh++
		}
	}
	st.ClipLow /= float64(B)
	st.ClipHigh /= float64(B)
	for _, v := range []float64{st.Loss, st.PolicyLoss, st.KL, st.Entropy} {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return st, fmt.Errorf("autodiff: loss: non-finite value %v (loss %v, policy_loss %v, kl %v, entropy %v)", v, st.Loss, st.PolicyLoss, st.KL, st.Entropy)
		}
	}
	return st, e.storeGrad(grad, gr)
}

// SFTLossAndGrad computes the mean cross-entropy −log π(a|x) over the rows of
// x (B×in, row-major) labelled with actions, writes its gradient into grad
// and returns the loss.
func (e *Engine[T]) SFTLossAndGrad(grad []T, m *nn.MLP[T], x []T, actions []uint8) (float64, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.check(m, grad, true); err != nil {
		return 0, err
	}
	B := len(actions)
	if err := e.checkX(x, B); err != nil {
		return 0, err
	}
	for i, a := range actions {
		if a >= nn.NumActions {
			return 0, fmt.Errorf("autodiff: row %d: action %d outside [0, %d)", i, a, nn.NumActions)
		}
	}
	gr, err := e.graph(kindSFT, graphRows(B))
	if err != nil {
		return 0, err
	}
	e.loadParams(gr, m)
	loadT(gr.x, x, B, e.in(), gr.batch)
	loadActions(gr, actions)
	if err := gr.run(); err != nil {
		return 0, err
	}
	loss := scalarOf(gr.loss)
	if math.IsNaN(loss) || math.IsInf(loss, 0) {
		return loss, fmt.Errorf("autodiff: sft loss: non-finite value %v", loss)
	}
	return loss, e.storeGrad(grad, gr)
}

// Forward writes the logits (B×NumActions, row-major) of the rows of x
// (B×in, row-major) into logits.
func (e *Engine[T]) Forward(logits []T, m *nn.MLP[T], x []T) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.check(m, nil, false); err != nil {
		return err
	}
	in := e.in()
	if len(x) == 0 || len(x)%in != 0 {
		return fmt.Errorf("autodiff: forward: %d feature values, want a positive multiple of width %d", len(x), in)
	}
	B := len(x) / in
	if err := e.checkX(x, B); err != nil {
		return err
	}
	if len(logits) != B*nn.NumActions {
		return fmt.Errorf("autodiff: forward: len(logits) = %d, want %d rows × %d actions", len(logits), B, nn.NumActions)
	}
	gr, err := e.graph(kindForward, graphRows(B))
	if err != nil {
		return err
	}
	e.loadParams(gr, m)
	loadT(gr.x, x, B, in, gr.batch)
	if err := gr.run(); err != nil {
		return err
	}
	// The graph's logits are action-major (NumActions × rows).
	for a := range nn.NumActions {
		for i := range B {
			logits[i*nn.NumActions+a] = T(gr.logits.at(a*gr.batch + i))
		}
	}
	return nil
}

// LossConfig returns the loss configuration the engine was built with.
func (e *Engine[T]) LossConfig() nn.LossConfig { return e.cfg }

// Close releases the compiled graphs. Later calls return ErrClosed.
func (e *Engine[T]) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	for k, gr := range e.graphs {
		if err := gr.vm.Close(); err != nil {
			errs = append(errs, err)
		}
		delete(e.graphs, k)
	}
	e.closed = true
	return errors.Join(errs...)
}

// graph returns the compiled graph of kind k for batch rows, building it on
// first use.
func (e *Engine[T]) graph(k kind, batch int) (*graph, error) {
	if gr, ok := e.graphs[key{k, batch}]; ok {
		return gr, nil
	}
	gr, err := build(k, e.sizes, e.attn, e.act, e.cfg, e.dt, batch)
	if err != nil {
		return nil, err
	}
	e.graphs[key{k, batch}] = gr
	return gr, nil
}

// check validates the engine state, the model and, if withGrad, grad.
func (e *Engine[T]) check(m *nn.MLP[T], grad []T, withGrad bool) error {
	switch {
	case e.closed:
		return ErrClosed
	case m == nil:
		return errors.New("autodiff: nil model")
	case !slices.Equal(m.Sizes, e.sizes):
		return fmt.Errorf("autodiff: model sizes %v, engine built for %v", m.Sizes, e.sizes)
	case m.Attn != e.attn:
		return fmt.Errorf("autodiff: model attention width %d, engine built for %d", m.Attn, e.attn)
	case m.Act != e.act:
		return fmt.Errorf("autodiff: model activation %v, engine built for %v", m.Act, e.act)
	case len(m.Params) != e.nparam:
		return fmt.Errorf("autodiff: model has %d parameters, sizes %v need %d", len(m.Params), e.sizes, e.nparam)
	case withGrad && len(grad) != e.nparam:
		return fmt.Errorf("autodiff: len(grad) = %d, want %d parameters", len(grad), e.nparam)
	}
	if i := finite(m.Params); i >= 0 {
		return fmt.Errorf("autodiff: model parameter %d is %v", i, m.Params[i])
	}
	return nil
}

// checkX validates B rows of features.
func (e *Engine[T]) checkX(x []T, B int) error {
	if B == 0 {
		return errors.New("autodiff: empty batch")
	}
	if len(x) != B*e.in() {
		return fmt.Errorf("autodiff: %d feature values for %d rows of width %d", len(x), B, e.in())
	}
	if i := finite(x); i >= 0 {
		return fmt.Errorf("autodiff: features[%d] is %v", i, x[i])
	}
	return nil
}

// in is the width of a feature row.
func (e *Engine[T]) in() int {
	if e.attn > 0 {
		return nn.AttnIn
	}
	return e.sizes[0]
}

func (e *Engine[T]) loadParams(gr *graph, m *nn.MLP[T]) {
	for i := range gr.attn {
		load(gr.attn[i], m.AttnTensor(i))
	}
	for l := range gr.w {
		load(gr.w[l], m.Weight(l))
		load(gr.b[l], m.Bias(l))
	}
}

// storeGrad copies the gradient buffers into grad, refusing non-finite ones.
func (e *Engine[T]) storeGrad(grad []T, gr *graph) error {
	front := grad[:nn.AttnParams(e.attn)]
	for _, g := range gr.gattn {
		store(front[:g.len()], g)
		front = front[g.len():]
	}
	head := grad[nn.AttnParams(e.attn):]
	for l := range gr.gw {
		store(nn.LayerWeight(e.sizes, head, l), gr.gw[l])
		store(nn.LayerBias(e.sizes, head, l), gr.gb[l])
	}
	if i := finite(grad); i >= 0 {
		return fmt.Errorf("autodiff: gradient %d is %v", i, grad[i])
	}
	return nil
}

// loadActions writes the one-hot masks of the actions, graph row r taking
// actions[r mod len(actions)].
func loadActions(gr *graph, actions []uint8) {
	for r := range gr.batch {
		a := actions[r%len(actions)]
		for k := range nn.NumActions {
			v := 0.0
			if int(a) == k {
				v = 1
			}
			gr.onehot[k].set(r, v)
		}
	}
}

// loadCenter writes the rank-match loss's group-averaging matrix: graph row
// r is batch row r mod B (as loadActions), in the group of that row, and
// C[r][c] = 1/n when rows r and c are in one group of n graph rows.
func loadCenter(gr *graph, group []int32, B int) error {
	if len(group) != B {
		return fmt.Errorf("autodiff: rank-match loss: %d group indices for %d rows", len(group), B)
	}
	n := gr.batch
	count := make(map[int32]int, B)
	for r := range n {
		count[group[r%B]]++
	}
	for r := range n {
		g := group[r%B]
		for c := range n {
			v := 0.0
			if group[c%B] == g {
				v = 1 / float64(count[g])
			}
			gr.center.set(r*n+c, v)
		}
	}
	return nil
}

// scalarOf returns the number held by a scalar Value read from a graph.
func scalarOf(v G.Value) float64 {
	switch d := v.Data().(type) {
	case float32:
		return float64(d)
	case float64:
		return d
	case []float32:
		return float64(d[0])
	case []float64:
		return d[0]
	}
	return math.NaN() // not a scalar: reported as a non-finite loss
}
