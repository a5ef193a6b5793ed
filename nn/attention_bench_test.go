package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkAttentionStep puts the attention network's loss and gradient
// (plain Go, one row at a time, float64 sums: AttnLossAndGrad) beside the
// MLP's on the best float32 kernels (Workspace.LossAndGrad, one thread),
// the default shapes: MLP 26 → 64 → 64 → 3 on v1 features; attention d = 16
// over 110 peers-v1 features, then 42 → 64 → 64 → 3; tanh, batch 512 (the
// training minibatch), half the rows of 3-agent teams (2 peers), half of
// 7 (6 peers). And the forward pass alone (decision time): LogitsRows.
func BenchmarkAttentionStep(b *testing.B) {
	const n = 512
	rng := rand.New(rand.NewPCG(1, 1))
	mlp := randModel[float32](rng, []int{AttnSelf, 64, 64, NumActions}, Tanh)
	mb := randBatch(rng, mlp, n)
	attn, err := NewAttention[float32](16, []int{AttnSelf + 16, 64, 64, NumActions}, Tanh)
	if err != nil {
		b.Fatal(err)
	}
	attn.Init(1)
	ab := randBatch(rng, attn, n)
	clear(ab.X)
	for r := range n {
		row := ab.X[r*AttnIn : (r+1)*AttnIn]
		copy(row, mb.X[r*AttnSelf:(r+1)*AttnSelf])
		for j := range 2 + 4*(r%2) {
			p := row[AttnSelf+j*AttnPeer : AttnSelf+(j+1)*AttnPeer]
			p[0] = 1
			for k := 1; k < AttnPeer; k++ {
				p[k] = float32(rng.Float64())
			}
		}
	}
	ws, err := newWorkspace(mlp.Sizes, Tanh, n, 1, kernelSetsFor[float32]()[0])
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	for _, c := range []struct {
		name string
		step func()
	}{
		{"arch=mlp/impl=" + KernelName[float32](), func() { ws.LossAndGrad(make([]float32, len(mlp.Params)), mlp, mb, DefaultLoss()) }},
		{"arch=attention/impl=go", func() { AttnLossAndGrad(make([]float32, len(attn.Params)), attn, ab, DefaultLoss()) }},
	} {
		b.Run(fmt.Sprintf("%s/part=step/batch=%d", c.name, n), func(b *testing.B) {
			for b.Loop() {
				c.step()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
	logits := make([]float32, n*NumActions)
	for _, c := range []struct {
		name string
		m    *MLP[float32]
		x    []float32
	}{{"arch=mlp/impl=rows", mlp, mb.X}, {"arch=attention/impl=go", attn, ab.X}} {
		b.Run(fmt.Sprintf("%s/part=forward/batch=%d", c.name, n), func(b *testing.B) {
			var buf []float64
			for b.Loop() {
				buf = c.m.LogitsRows(logits, c.x, buf)
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "samples/s")
		})
	}
}
