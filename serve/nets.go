package serve

// A decoupled policy (design §4): a network per agent slot or model, and
// a fallback for an agent none is named for. A request's rows are
// featurized as for one network; each row is then run by its agent's
// network, the rows of one network gathered into one batched forward pass
// through the same kernels, so that a row's logits are what that network
// alone computes for it.

import (
	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// decoupled is the networks of a decoupled policy: nets[k] for key k of
// index, nets[len(nets)-1] the fallback.
type decoupled struct {
	by    metapolicy.AgentPolicy
	nets  []*nn.MLP[float32]
	index map[string]int32
}

func newDecoupled(n *checkpoints.Networks) *decoupled {
	d := &decoupled{by: n.By, index: make(map[string]int32, len(n.Keys))}
	for k, key := range n.Keys {
		d.index[key] = int32(k)
		d.nets = append(d.nets, n.Nets[k].Clone())
	}
	d.nets = append(d.nets, n.Fallback.Clone())
	return d
}

// netOf is the network deciding for agent self of the agents.
func (d *decoupled) netOf(self int, agents []metapolicy.AgentState) int32 {
	if k, ok := d.index[d.by.KeyOf(self, agents[self].Model)]; ok {
		return k
	}
	return int32(len(d.nets) - 1)
}

// forwardNets is forward with row r run by network nets[r]: each
// network's rows gathered, run in chunks, and scattered back.
func (p *Policy) forwardNets(logits, x []float32, nets []int32, sc *scratch) {
	run := nn.ForwardRef[float32] // attention networks: nn's loops, Logits row by row
	if p.net.Attn == 0 {
		ws := p.ws.Get().(*nn.Workspace[float32])
		defer p.ws.Put(ws)
		run = ws.ForwardTo
	}
	in, out := p.fz.Width, metapolicy.NumActions
	for k, net := range p.dec.nets {
		sc.rows = sc.rows[:0]
		for r, j := range nets {
			if int(j) == k {
				sc.rows = append(sc.rows, r)
			}
		}
		for c := 0; c < len(sc.rows); c += chunkRows {
			rows := sc.rows[c:min(c+chunkRows, len(sc.rows))]
			sc.subX = sc.subX[:0]
			for _, r := range rows {
				sc.subX = append(sc.subX, x[r*in:(r+1)*in]...)
			}
			if cap(sc.subLogits) < len(rows)*out {
				sc.subLogits = make([]float32, chunkRows*out)
			}
			sub := sc.subLogits[:len(rows)*out]
			run(sub, net, sc.subX)
			for j, r := range rows {
				copy(logits[r*out:(r+1)*out], sub[j*out:(j+1)*out])
			}
		}
	}
}
