package trainer

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// BenchmarkSoftRank measures SoftRankTo on one group; kind=ties draws five
// reward levels (u = 5 distinct values).
func BenchmarkSoftRank(b *testing.B) {
	for _, kind := range []string{"continuous", "ties"} {
		for _, n := range []int{64, 512, 4096} {
			r := benchRewards(kind, n)
			dst := make([]float64, n)
			b.Run(fmt.Sprintf("kind=%s/group=%d", kind, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if err := SoftRankTo(dst, r, DefaultTau); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rewards/s")
			})
		}
	}
}

// BenchmarkSoftRankSums compares the pairwise sums, impl=fast the package's
// path and impl=plain the O(n²)-exp loop it replaces, on distinct rewards.
func BenchmarkSoftRankSums(b *testing.B) {
	for _, n := range []int{64, 512, 4096} {
		var sc softRankScratch
		sc.positions(benchRewards("continuous", n), DefaultTau)
		s := make([]float64, len(sc.u))
		h := DefaultTau * 0.7 // about τc for N(0, 1) rewards
		for _, impl := range []string{"fast", "plain"} {
			b.Run(fmt.Sprintf("impl=%s/group=%d", impl, n), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if impl == "fast" {
						softRankSums(s, sc.u, sc.m, h, &sc.sums)
					} else {
						softRankSumsRef(s, sc.u, sc.m, h)
					}
				}
				b.ReportMetric(float64(n)*float64(n-1)/2*float64(b.N)/b.Elapsed().Seconds(), "pairs/s")
			})
		}
	}
}

func benchRewards(kind string, n int) []float64 {
	rng := rand.New(rand.NewPCG(1, uint64(n)))
	r := make([]float64, n)
	for i := range r {
		if kind == "ties" {
			r[i] = float64(rng.IntN(5) - 2)
		} else {
			r[i] = rng.NormFloat64()
		}
	}
	return r
}

// BenchmarkGroupAdvantages is a rollout batch of tasks × samples rows.
func BenchmarkGroupAdvantages(b *testing.B) {
	for _, g := range []int{8, 64} {
		rows := 4096
		rng := rand.New(rand.NewPCG(2, 2))
		r := make([]float64, rows)
		keys := make([]string, rows)
		for i := range r {
			r[i] = float64(rng.IntN(5) - 2)
			keys[i] = fmt.Sprintf("task-%d", i/g)
		}
		dst := make([]float64, rows)
		b.Run(fmt.Sprintf("est=softrank/batch=%d/group=%d", rows, g), func(b *testing.B) {
			var gr grouping
			est := SoftRankEstimator{Tau: DefaultTau}
			b.ReportAllocs()
			for b.Loop() {
				gr.build(keys)
				if err := gr.advantages(dst, r, est); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
