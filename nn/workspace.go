package nn

import (
	"fmt"
	"runtime"
	"unsafe"
)

// Workspace runs the batched kernels of the update step — forward pass,
// SPEC §4 loss, gradients — on a fixed set of worker goroutines, with every
// buffer allocated once by NewWorkspace: a step allocates nothing.
//
// # How a step runs
//
// The calling goroutine copies the weights into the layouts the kernels read
// (Wᵀ for the forward products, W with padded rows for the backward ones),
// then splits the batch into one contiguous block of rows per worker, itself
// being worker 0; a block has at least one tile. Each worker walks its block
// in tiles of up to 64 rows and, for each tile, runs the forward pass, the
// loss and the backward pass while the tile's activations are in cache,
// accumulating the gradient into its own partial. The caller then adds the
// partials in worker order and writes them, in the flat layout, to grad.
// Row blocks, tiles and the order of every sum depend only on the batch
// size and the thread count: results are reproducible bit for bit for a
// given build, CPU feature level and thread count.
//
// # Kernels
//
// Every matrix product — Z = H·Wᵀ forward, ∂H = ∂Z·W and ∂W += ∂Zᵀ·H
// backward — is one primitive, C (+)= A·B, with A read a scalar at a time
// through arbitrary strides and B, C row-major with rows padded to the vector
// width (zeros in the padding, so no kernel has a column tail, whatever the
// layer widths). It is vectorised along C's rows in register blocks of 2×4
// vectors, the most Go's register allocator keeps in its 15 vector registers.
// An output layer much narrower than a vector (the 3 logits) is computed
// instead as dot products reduced across lanes. The loss runs 16 rows (8
// with AVX2) to a vector, with polynomial exp and log, on the columns of a
// tile gathered from the rows. float32 tanh is tanh32, a rational function
// within 4e-7 of math.Tanh, in every build; float64 uses math.Tanh.
//
// The instruction set is chosen at run time: with GOEXPERIMENT=simd on
// amd64, AVX-512 (16 float32 lanes) or AVX2 with FMA (8 lanes) through
// simd/archsimd; otherwise, and on other CPUs, portable Go loops blocked the
// same way. KernelName reports the choice. Every vector kernel ends with
// archsimd.ClearAVXUpperBits: scalar Go code (SSE instructions) run while
// the upper halves of the vector registers are dirty pays on every
// instruction, which made math.Tanh several times slower.
//
// Each kernel keeps its plain reference loop beside it (ForwardRef,
// LossAndGradRef, SFTLossAndGradRef, Adam.Update); the tests compare every
// instruction set the machine has against them, and against Gorgonia, on
// random shapes, with NaN guard bands around every output.
//
// # Use
//
// A Workspace serves one goroutine at a time and MLPs of the sizes and
// activation it was built for; arguments that disagree are caller bugs and
// panic. Batch statistics and the loss terms of a row are computed in
// float64 by the portable and float64 kernels, in float32 (summed in
// float64) by the float32 vector kernels. Close stops the goroutines; a
// Workspace that becomes unreachable is closed by the garbage collector.
type Workspace[T Float] struct {
	s *wsState[T]
}

// tileRows is the number of rows a worker carries through the whole network
// at once: enough to amortise the weight loads of the products, few enough
// that a tile's activations stay in the L2 cache.
const tileRows = 64

type jobKind uint8

const (
	jobForward jobKind = iota
	jobLoss
	jobSFT
)

// wsState is the Workspace's content; the worker goroutines hold it, the
// Workspace wrapper only the caller does, so that dropping the Workspace lets
// the garbage collector stop them.
type wsState[T Float] struct {
	sizes    []int
	act      Activation
	maxBatch int
	threads  int
	tile     int
	k        *kernelSet[T]
	pad      []int  // pad[i]: sizes[i] rounded up to k.lanes
	vecIn    []bool // layer l's weight gradient is kept [out][pad in] (else [in][pad out])
	dotOut   bool   // the output layer runs k.dot on wp[L−1] instead of gemm

	// The step's weights, copied from the MLP: wt[l] is Wᵀ [in][pad out],
	// wp[l] is W [out][pad in] (for l > 0, and for the output layer when
	// dotOut, its rows then rounded up to 4), bias[l] is [pad out].
	wt, wp, bias [][]T

	workers []*worker[T]
	pool    *pool
	closed  bool

	// The job being run, set by the caller before it wakes the workers.
	job     jobKind
	rows    int // batch rows
	nw      int // workers taking part
	x       []T
	batch   *Batch[T]
	cfg     LossConfig
	actions []uint8
	logits  []T
	logp    bool // jobForward: log-softmax of each row of logits
}

// worker holds one worker's buffers. h[l] is layer l's output and d[l] the
// loss gradient with respect to layer l's pre-activation, tile × pad[l+1]
// each; gw and gb are its gradient partials.
type worker[T Float] struct {
	h, d   [][]T
	gw, gb [][]T
	sums   lossSums
}

// NewWorkspace returns a Workspace for MLPs of the given sizes and
// activation and batches of up to maxBatch rows, run on threads goroutines
// (runtime.GOMAXPROCS(0) when threads ≤ 0).
func NewWorkspace[T Float](sizes []int, act Activation, maxBatch, threads int) (*Workspace[T], error) {
	k, ok := bestSet[T]()
	if !ok {
		k = portableSet[T]()
	}
	return newWorkspace(sizes, act, maxBatch, threads, k)
}

func newWorkspace[T Float](sizes []int, act Activation, maxBatch, threads int, k *kernelSet[T]) (*Workspace[T], error) {
	if _, err := NumParams(sizes); err != nil {
		return nil, err
	}
	if act > ReLU {
		return nil, fmt.Errorf("nn: workspace: unknown activation %d", uint8(act))
	}
	if maxBatch <= 0 {
		return nil, fmt.Errorf("nn: workspace: max batch %d, want > 0", maxBatch)
	}
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	threads = min(threads, (maxBatch+tileRows-1)/tileRows)
	L := len(sizes) - 1
	s := &wsState[T]{
		sizes:    append([]int(nil), sizes...),
		act:      act,
		maxBatch: maxBatch,
		threads:  threads,
		tile:     min(tileRows, maxBatch),
		k:        k,
		pad:      make([]int, len(sizes)),
		vecIn:    make([]bool, L),
		wt:       make([][]T, L),
		wp:       make([][]T, L),
		bias:     make([][]T, L),
	}
	for i, n := range sizes {
		s.pad[i] = (n + k.lanes - 1) / k.lanes * k.lanes
	}
	out, out4 := sizes[L], (sizes[L]+3)&^3
	s.dotOut = k.dot != nil && 2*out <= k.lanes && out4 <= s.pad[L] && (L > 1 || sizes[0] == s.pad[0])
	for l := 0; l < L; l++ {
		in, out := sizes[l], sizes[l+1]
		// Vectorise the weight gradient along whichever side wastes fewer
		// lanes; layer 0's input (the caller's X) has no padding, so it can
		// only be read a scalar at a time.
		s.vecIn[l] = l > 0 && in*s.pad[l+1] > out*s.pad[l]
		s.wt[l] = alignedSlice[T](in * s.pad[l+1])
		switch {
		case l == L-1 && s.dotOut:
			s.wp[l] = alignedSlice[T](out4 * s.pad[l]) // rows past out stay zero
		case l > 0:
			s.wp[l] = alignedSlice[T](out * s.pad[l])
		}
		s.bias[l] = alignedSlice[T](s.pad[l+1])
	}
	s.workers = make([]*worker[T], threads)
	for i := range s.workers {
		wk := &worker[T]{h: make([][]T, L), d: make([][]T, L), gw: make([][]T, L), gb: make([][]T, L)}
		for l := 0; l < L; l++ {
			wk.h[l] = alignedSlice[T](s.tile * s.pad[l+1])
			wk.d[l] = alignedSlice[T](s.tile * s.pad[l+1])
			if s.vecIn[l] {
				wk.gw[l] = alignedSlice[T](sizes[l+1] * s.pad[l])
			} else {
				wk.gw[l] = alignedSlice[T](sizes[l] * s.pad[l+1])
			}
			wk.gb[l] = alignedSlice[T](s.pad[l+1])
		}
		s.workers[i] = wk
	}
	s.pool = startPool(threads, s)
	w := &Workspace[T]{s: s}
	runtime.AddCleanup(w, func(p *pool) { p.stop() }, s.pool)
	return w, nil
}

// Close stops the worker goroutines. The Workspace must not be used after.
func (w *Workspace[T]) Close() {
	w.s.closed = true
	w.s.pool.stop()
}

// Threads is the number of goroutines the Workspace runs a step on.
func (w *Workspace[T]) Threads() int { return w.s.threads }

// alignedSlice returns n zeros starting on a 64-byte boundary (a cache line,
// and the width of an AVX-512 vector).
func alignedSlice[T Float](n int) []T {
	var z T
	size := int(unsafe.Sizeof(z))
	buf := make([]T, n+64/size)
	skip := int(-uintptr(unsafe.Pointer(unsafe.SliceData(buf)))&63) / size
	return buf[skip : skip+n : skip+n]
}

// LossAndGrad writes the gradient of the SPEC §4 loss of batch b (its mean
// over the rows) with respect to m.Params into grad and returns the batch
// statistics. It is LossAndGradRef's kernel: it trusts b (call b.Check once
// where the batch is built) and allocates nothing.
func (w *Workspace[T]) LossAndGrad(grad []T, m *MLP[T], b *Batch[T], cfg LossConfig) LossStats {
	s := w.s
	checkLossArgs("Workspace.LossAndGrad", grad, m, b)
	s.begin("LossAndGrad", m, b.Len())
	s.job, s.x, s.batch, s.cfg = jobLoss, b.X, b, cfg
	s.loadWeights(m, true)
	s.pool.run(s.nw)
	s.reduceGrad(grad)
	sum := s.sumStats()
	s.end()
	fn := float64(b.Len())
	return LossStats{
		Loss:       sum.loss / fn,
		PolicyLoss: sum.pol / fn,
		KL:         sum.kl / fn,
		Entropy:    sum.ent / fn,
		ClipLow:    float64(sum.clipLow) / fn,
		ClipHigh:   float64(sum.clipHigh) / fn,
	}
}

// SFTLossAndGrad writes the gradient of the mean cross-entropy
// −log π(actions[r] | x[r]) into grad and returns that mean. It is
// SFTLossAndGradRef's kernel and allocates nothing.
func (w *Workspace[T]) SFTLossAndGrad(grad []T, m *MLP[T], x []T, actions []uint8) float64 {
	s := w.s
	checkSFTArgs("Workspace.SFTLossAndGrad", grad, m, x, actions)
	s.begin("SFTLossAndGrad", m, len(actions))
	s.job, s.x, s.actions = jobSFT, x, actions
	s.loadWeights(m, true)
	s.pool.run(s.nw)
	s.reduceGrad(grad)
	sum := s.sumStats()
	s.end()
	return sum.loss / float64(len(actions))
}

// ForwardTo writes the logits of the rows of x (B×In, row-major) into logits
// (B×Out). It is ForwardRef's kernel and allocates nothing.
func (w *Workspace[T]) ForwardTo(logits []T, m *MLP[T], x []T) {
	w.forward("ForwardTo", logits, m, x, false)
}

// LogProbsTo writes the log-probabilities log softmax(logits) of the rows of
// x into dst (B×Out): ForwardTo and LogSoftmaxTo on each row, bit for bit,
// with the log-softmax run by the workers too. It allocates nothing.
func (w *Workspace[T]) LogProbsTo(dst []T, m *MLP[T], x []T) {
	w.forward("LogProbsTo", dst, m, x, true)
}

func (w *Workspace[T]) forward(op string, logits []T, m *MLP[T], x []T, logp bool) {
	s := w.s
	in, out := m.In(), m.Out()
	if len(x)%in != 0 || len(logits) != len(x)/in*out {
		panic(fmt.Sprintf("nn: Workspace.%s: len(x)=%d len(logits)=%d for widths %d→%d", op, len(x), len(logits), in, out))
	}
	n := len(x) / in
	if n == 0 {
		return
	}
	s.begin(op, m, n)
	s.job, s.x, s.logits, s.logp = jobForward, x, logits, logp
	s.loadWeights(m, false)
	s.pool.run(s.nw)
	s.end()
}

// begin checks that m and n rows fit the workspace and splits the rows
// between the workers: at least a tile each.
func (s *wsState[T]) begin(op string, m *MLP[T], n int) {
	if s.closed {
		panic("nn: Workspace." + op + ": the workspace is closed")
	}
	if m.Act != s.act || len(m.Sizes) != len(s.sizes) {
		panic(fmt.Sprintf("nn: Workspace.%s: MLP %v %v, workspace built for %v %v", op, m.Sizes, m.Act, s.sizes, s.act))
	}
	for i, v := range m.Sizes {
		if v != s.sizes[i] {
			panic(fmt.Sprintf("nn: Workspace.%s: MLP %v %v, workspace built for %v %v", op, m.Sizes, m.Act, s.sizes, s.act))
		}
	}
	if n > s.maxBatch {
		panic(fmt.Sprintf("nn: Workspace.%s: %d rows, workspace built for at most %d", op, n, s.maxBatch))
	}
	s.rows = n
	s.nw = min(s.threads, (n+s.tile-1)/s.tile)
}

// end drops the references to the caller's data.
func (s *wsState[T]) end() {
	s.x, s.batch, s.actions, s.logits = nil, nil, nil, nil
}

// loadWeights copies m's weights into the padded layouts the kernels read;
// the transposed-back copy wp only when a backward pass follows.
func (s *wsState[T]) loadWeights(m *MLP[T], backward bool) {
	for l := 0; l < len(s.sizes)-1; l++ {
		in, out, po := s.sizes[l], s.sizes[l+1], s.pad[l+1]
		w, wt := m.Weight(l), s.wt[l]
		for k := 0; k < in; k++ {
			row := wt[k*po : k*po+out]
			for o := range row {
				row[o] = w[o*in+k]
			}
		}
		copy(s.bias[l], m.Bias(l))
		if (backward && l > 0) || (l == len(s.sizes)-2 && s.dotOut) {
			pi, wp := s.pad[l], s.wp[l]
			for o := 0; o < out; o++ {
				copy(wp[o*pi:o*pi+in], w[o*in:(o+1)*in])
			}
		}
	}
}

// runWorker runs worker id's block of rows of the current job.
func (s *wsState[T]) runWorker(id int) {
	wk := s.workers[id]
	r0, r1 := id*s.rows/s.nw, (id+1)*s.rows/s.nw
	in, L := s.sizes[0], len(s.sizes)-1
	if s.job == jobForward {
		out, ld := s.sizes[L], s.pad[L]
		for t0 := r0; t0 < r1; t0 += s.tile {
			rows := min(s.tile, r1-t0)
			s.forwardTile(wk, s.x[t0*in:(t0+rows)*in], rows)
			h := wk.h[L-1]
			for r := 0; r < rows; r++ {
				dst := s.logits[(t0+r)*out : (t0+r+1)*out]
				copy(dst, h[r*ld:r*ld+out])
				if s.logp {
					LogSoftmaxTo(dst, dst)
				}
			}
		}
		return
	}
	for l := range wk.gw {
		clear(wk.gw[l])
		clear(wk.gb[l])
	}
	wk.sums = lossSums{}
	invB := 1 / float64(s.rows)
	ld := s.pad[L]
	for t0 := r0; t0 < r1; t0 += s.tile {
		rows := min(s.tile, r1-t0)
		x := s.x[t0*in : (t0+rows)*in]
		s.forwardTile(wk, x, rows)
		if s.job == jobLoss {
			s.k.loss(wk.d[L-1], wk.h[L-1], ld, s.batch, t0, rows, s.cfg, invB, &wk.sums)
		} else {
			sftRows(wk.d[L-1], wk.h[L-1], ld, s.sizes[L], s.actions, t0, rows, invB, &wk.sums)
		}
		s.backwardTile(wk, x, rows)
	}
}

// forwardTile runs the rows×In tile x through the network into wk.h.
func (s *wsState[T]) forwardTile(wk *worker[T], x []T, rows int) {
	k, L := s.k, len(s.sizes)-1
	a, lda := x, s.sizes[0]
	for l := 0; l < L; l++ {
		po := s.pad[l+1]
		h := wk.h[l]
		if l == L-1 && s.dotOut {
			k.dot(h, po, a, lda, s.wp[l], s.pad[l], rows, s.sizes[l+1], s.pad[l])
		} else {
			k.gemm(h, po, a, lda, 1, s.wt[l], po, rows, po, s.sizes[l], false)
		}
		k.biasAct(h, po, s.bias[l], rows, po, s.act, l < L-1)
		a, lda = h, po
	}
}

// backwardTile accumulates the gradient of the tile into wk.gw and wk.gb,
// given x and the loss gradient with respect to the logits in wk.d[L−1].
func (s *wsState[T]) backwardTile(wk *worker[T], x []T, rows int) {
	k := s.k
	for l := len(s.sizes) - 2; l >= 0; l-- {
		in, out, pi, po := s.sizes[l], s.sizes[l+1], s.pad[l], s.pad[l+1]
		dz := wk.d[l]
		h, ldh := x, in
		if l > 0 {
			h, ldh = wk.h[l-1], pi
		}
		k.colSum(wk.gb[l], dz, po, rows, po)
		if s.vecIn[l] {
			k.gemm(wk.gw[l], pi, dz, 1, po, h, ldh, out, pi, rows, true) // ∂W += ∂Zᵀ·H
		} else {
			k.gemm(wk.gw[l], po, h, 1, ldh, dz, po, in, po, rows, true) // ∂Wᵀ += Hᵀ·∂Z
		}
		if l > 0 {
			dh := wk.d[l-1]
			k.gemm(dh, pi, dz, po, 1, s.wp[l], pi, rows, pi, out, false) // ∂H = ∂Z·W
			k.actGrad(dh[:rows*pi], h[:rows*pi], s.act)
		}
	}
}

// reduceGrad sums the workers' partials, in worker order, into worker 0's
// (a vector add), then writes them into grad in the flat layout.
func (s *wsState[T]) reduceGrad(grad []T) {
	ws := s.workers[:s.nw]
	for l := 0; l < len(s.sizes)-1; l++ {
		in, out := s.sizes[l], s.sizes[l+1]
		pw, pb := ws[0].gw[l], ws[0].gb[l]
		for _, wk := range ws[1:] {
			s.k.colSum(pw, wk.gw[l], 0, 1, len(pw))
			s.k.colSum(pb, wk.gb[l], 0, 1, len(pb))
		}
		gw := LayerWeight(s.sizes, grad, l)
		if s.vecIn[l] { // pw is [out][pad in]
			pi := s.pad[l]
			for o := 0; o < out; o++ {
				copy(gw[o*in:(o+1)*in], pw[o*pi:o*pi+in])
			}
		} else { // pw is [in][pad out]
			po := s.pad[l+1]
			for k := 0; k < in; k++ {
				for o, v := range pw[k*po : k*po+out] {
					gw[o*in+k] = v
				}
			}
		}
		copy(LayerBias(s.sizes, grad, l), pb[:out])
	}
}

func (s *wsState[T]) sumStats() lossSums {
	var sum lossSums
	for _, wk := range s.workers[:s.nw] {
		sum.add(wk.sums)
	}
	return sum
}
