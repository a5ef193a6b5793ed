// Package nn holds the meta-policy network: MLP parameters, their seeded
// initialisation, the Adam optimiser of SPEC §4, and the CPU kernels that run
// the whole update step (forward, SoftRankPO + KL loss, backward, Adam).
//
// # Data layout
//
// An MLP with Sizes = [in, h1, ..., out] stores every parameter in one flat
// slice, Params, layer 0 first. Layer i occupies Sizes[i+1]*Sizes[i] weights in
// row-major [out, in] order (the layout of a PyTorch nn.Linear), followed by
// Sizes[i+1] biases. Gradients, Adam moments and checkpoints use the same flat
// layout, so an optimiser step is a single loop over one slice.
//
// Batches are row-major: X holds B rows of Sizes[0] features.
//
// # Precision
//
// Every type is generic over Float (float32 or float64). float32 is the
// training fast path and the checkpoint format; float64 is there for gradient
// checks and for users who want it.
//
// # Ownership
//
// Functions named ...To write into a destination the caller owns and never
// allocate. Kernels trust their arguments: shape errors are caller bugs and
// panic with an "nn:" prefix; callers check input once at their boundary.
package nn
