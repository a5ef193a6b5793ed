//go:build !amd64 || noasm || !gc

package nn

// panelSet is a set of vector kernels for LogitsRows; without the amd64
// assembly there is none, and LogitsRows runs its portable row loop.
type panelSet struct {
	name  string
	lanes int
}

func panelSets() []*panelSet { return []*panelSet{nil} }

func (p *panelSet) sums(c, h, wT, b []float64, in, out int) { panic("nn: no panel kernels") }
