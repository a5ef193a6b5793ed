// Package nn holds the meta-policy network: MLP parameters, their seeded
// initialisation, the Adam optimiser of design §4, and the CPU kernels that run
// the whole update step (forward, SoftRankPO + KL loss, backward, Adam); the
// rank-matching loss ([LossRankMatch], loss_rankmatch.go) runs a portable loss tile.
// Most users reach it through package trainer; directly:
//
//	m, err := nn.NewMLP[float32]([]int{26, 64, 64, nn.NumActions}, nn.Tanh)
//	m.Init(seed)
//	ws, err := nn.NewWorkspace[float32](m.Sizes, m.Act, maxBatch, threads)
//
// # Data layout
//
// An [MLP] with Sizes = [in, h1, ..., out] stores every parameter in one flat
// slice, Params, layer 0 first. Layer i occupies Sizes[i+1]*Sizes[i] weights in
// row-major [out, in] order (the layout of a PyTorch nn.Linear), followed by
// Sizes[i+1] biases. Gradients, Adam moments and checkpoints use the same flat
// layout, so an optimiser step is a single loop over one slice.
//
// Batches are row-major: X holds B rows of Sizes[0] features.
//
// # Precision
//
// Every type is generic over [Float] (float32 or float64). float32 is the
// training fast path and the checkpoint format; float64 is there for gradient
// checks and for users who want it.
//
// # Kernels
//
// A [Workspace] runs the update step on batched kernels: the batch is split
// into one contiguous block of rows per thread, each walked in 64-row tiles
// with its own gradient partial, reduced in a fixed order; a fixed pool of
// worker goroutines claims the blocks, one goroutine per 128 rows of a step
// or 2,048 of a forward pass (below twice that the caller alone: a second
// thread costs more than it saves there), which changes no result. On amd64 the float32
// kernels are Go assembly (AVX-512, or AVX2 with FMA, chosen at run time from
// the CPU's features through golang.org/x/sys/cpu); float64, named float
// types, other architectures and the noasm build tag run portable Go loops.
// [KernelName] tells which. Each kernel keeps its plain reference loop beside
// it ([ForwardRef], [LossAndGradRef], [SFTLossAndGradRef], [Adam.Update]), and the
// tests compare the two. Results are bit-for-bit reproducible for a given
// build, CPU feature level and thread count.
//
// # Ownership
//
// Functions named ...To write into a destination the caller owns and never
// allocate. Kernels trust their arguments: shape errors are caller bugs and
// panic with an "nn:" prefix; callers check input once at their boundary.
package nn
