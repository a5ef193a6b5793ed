//go:build !noasm && gc

package nn

import (
	"sync"

	"golang.org/x/sys/cpu"
)

// panelKernel is a generated panelSums<R> kernel: R outputs of one panel.
type panelKernel func(c, h, w *float64, ldw int, b *float64, width int)

// panelSet is one instruction set's panelSums kernels, k[R] for R = 1..8,
// and the float64 lanes of its vectors (the rows of a panel).
type panelSet struct {
	name  string
	lanes int
	k     [9]panelKernel
}

var (
	panelAVX512 = &panelSet{name: "avx512", lanes: 8, k: [9]panelKernel{nil,
		panelSums1AVX512, panelSums2AVX512, panelSums3AVX512, panelSums4AVX512,
		panelSums5AVX512, panelSums6AVX512, panelSums7AVX512, panelSums8AVX512}}
	panelAVX2 = &panelSet{name: "avx2", lanes: 4, k: [9]panelKernel{nil,
		panelSums1AVX2, panelSums2AVX2, panelSums3AVX2, panelSums4AVX2,
		panelSums5AVX2, panelSums6AVX2, panelSums7AVX2, panelSums8AVX2}}
)

// panelSets lists the panel kernels this CPU runs, best first, then nil
// (the portable row loop).
var panelSets = sync.OnceValue(func() []*panelSet {
	var ps []*panelSet
	if cpu.X86.HasAVX2 && cpu.X86.HasAVX512F {
		ps = append(ps, panelAVX512)
	}
	if cpu.X86.HasAVX2 {
		ps = append(ps, panelAVX2)
	}
	return append(ps, nil)
})

// sums runs the kernels over one panel: c (out vectors) from h (in vectors),
// wT the transposed weights ([in][out]) and b the biases.
func (p *panelSet) sums(c, h, wT, b []float64, in, out int) {
	l := p.lanes
	_ = c[out*l-1]
	_ = h[in*l-1]
	_ = wT[in*out-1]
	_ = b[out-1]
	for o := 0; o < out; o += len(p.k) - 1 {
		r := min(len(p.k)-1, out-o)
		p.k[r](&c[o*l], &h[0], &wT[o], out*8, &b[o], in)
	}
}
