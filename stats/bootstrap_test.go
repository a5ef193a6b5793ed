package stats

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Two clusters of unequal size: A = {1, 1, 1}, B = {0}. Drawing two
// clusters with replacement gives AA (p 1/4, mean 6/6 = 1), AB or BA
// (p 1/2, mean 3/4) and BB (p 1/4, mean 0): the ratio estimator weighs a
// cluster by its size, so AB is 3/4, not the mean of means 1/2.
func TestMeanTwoClustersByHand(t *testing.T) {
	x := []float64{1, 0, 1, 1}
	cl := []int{7, 3, 7, 7} // labels are names only
	b := Bootstrap{Resamples: 20000, Seed: 1}
	sums, counts, err := clusterSums(x, nil, cl)
	if err != nil {
		t.Fatal(err)
	}
	dist, err := b.Distribution(sums, counts)
	if err != nil {
		t.Fatal(err)
	}
	want := map[float64]float64{0: 0.25, 0.75: 0.5, 1: 0.25}
	got := map[float64]int{}
	for _, v := range dist {
		got[v]++
	}
	for v, p := range want {
		f := float64(got[v]) / float64(len(dist))
		sd := math.Sqrt(p * (1 - p) / float64(len(dist)))
		if math.Abs(f-p) > 5*sd {
			t.Errorf("share of draws with mean %v: %.4f, want %.2f ± %.4f", v, f, p, 5*sd)
		}
	}
	if len(got) != len(want) {
		t.Errorf("draw means %v, want only 0, 3/4 and 1", got)
	}
	for _, c := range []struct {
		level, lo, hi float64
	}{
		{0.95, 0, 1},      // 2.5% and 97.5% quantiles
		{0.9, 0, 1},       // 5% and 95%
		{0.4, 0.75, 0.75}, // 30% and 70% both fall in the atom 3/4
	} {
		b.Level = c.level
		iv, err := b.Mean(x, cl)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Estimate != 0.75 || iv.Low != c.lo || iv.High != c.hi {
			t.Errorf("level %v: %+v, want 0.75 in [%v, %v]", c.level, iv, c.lo, c.hi)
		}
	}
}

// Three clusters of paired differences x − y: a = {1, 0} (sum 1, n 2),
// b = {−1} and c = {0}. The 27 equally likely ordered draws of three
// clusters, grouped by multiset (probability k/27, statistic Σs/Σn):
//
//	bbb 1 → −1     bbc 3 → −2/3   bcc 3 → −1/3   abb 3 → −1/4
//	ccc 1 → 0      abc 6 → 0      aab 3 → 1/5    acc 3 → 1/4
//	aac 3 → 2/5    aaa 1 → 1/2
//
// so the CDF is −1: 1/27, −2/3: 4/27, −1/3: 7/27, −1/4: 10/27, 0: 17/27,
// 1/5: 20/27, 1/4: 23/27, 2/5: 26/27, 1/2: 1. The quantiles asked below
// sit well inside those steps, so Monte Carlo noise cannot move them.
func TestPairedDiffThreeClustersByHand(t *testing.T) {
	x := []float64{1, 0, 1, 0}
	y := []float64{0, 1, 1, 0}
	cl := []int{0, 1, 0, 2} // a = obs 0 and 2 (d = 1, 0), b = obs 1 (d = −1), c = obs 3 (d = 0)
	for _, c := range []struct {
		level, lo, hi float64
	}{
		{0.95, -1, 0.5},       // 2.5%: CDF(−1) = .037; 97.5%: CDF(2/5) = .963 < .975
		{0.8, -2.0 / 3, 0.4},  // 10%: CDF(−1) = .037 < .1 ≤ CDF(−2/3) = .148; 90%: .852 < .9 ≤ .963
		{0.6, -1.0 / 3, 0.25}, // 20%: .148 < .2 ≤ .259; 80%: .741 < .8 ≤ .852
	} {
		b := Bootstrap{Resamples: 20000, Level: c.level, Seed: 2}
		iv, err := b.PairedDiff(x, y, cl)
		if err != nil {
			t.Fatal(err)
		}
		if iv.Estimate != 0 || math.Abs(iv.Low-c.lo) > 1e-12 || math.Abs(iv.High-c.hi) > 1e-12 {
			t.Errorf("level %v: %+v, want 0 in [%.4f, %.4f]", c.level, iv, c.lo, c.hi)
		}
	}
}

// A cluster bootstrap of perfectly correlated copies is wider than the
// same data taken as independent observations: ten tasks each played four
// times identically carry the information of ten, not forty.
func TestClusteringWidensInterval(t *testing.T) {
	var x []float64
	var byTask, byObs []int
	for task := range 10 {
		for range 4 {
			x = append(x, float64(task%2))
			byTask = append(byTask, task)
			byObs = append(byObs, len(byObs))
		}
	}
	b := Bootstrap{Seed: 3}
	c, err := b.Mean(x, byTask)
	if err != nil {
		t.Fatal(err)
	}
	i, err := b.Mean(x, byObs)
	if err != nil {
		t.Fatal(err)
	}
	if !(c.High-c.Low > 1.5*(i.High-i.Low)) {
		t.Errorf("clustered width %.3f, independent %.3f: want the clustered ≈ 2× wider", c.High-c.Low, i.High-i.Low)
	}
}

func TestBootstrapDeterministic(t *testing.T) {
	x := []float64{1, 0, 1, 1, 0, 1, 0, 0, 1}
	cl := []int{0, 0, 1, 2, 2, 3, 4, 4, 5}
	a, _ := Bootstrap{Seed: 9}.Mean(x, cl)
	b, _ := Bootstrap{Seed: 9}.Mean(x, cl)
	if a != b {
		t.Errorf("same seed: %+v then %+v", a, b)
	}
}

func TestBootstrapErrors(t *testing.T) {
	for name, f := range map[string]func() error{
		"empty":      func() error { _, err := Bootstrap{}.Mean(nil, nil); return err },
		"labels":     func() error { _, err := Bootstrap{}.Mean([]float64{1, 2}, []int{0}); return err },
		"pairs":      func() error { _, err := Bootstrap{}.PairedDiff([]float64{1, 2}, []float64{1}, []int{0, 1}); return err },
		"nan":        func() error { _, err := Bootstrap{}.Mean([]float64{math.NaN()}, []int{0}); return err },
		"level":      func() error { _, err := Bootstrap{Level: 1}.Mean([]float64{1}, []int{0}); return err },
		"resamples":  func() error { _, err := Bootstrap{Resamples: -1}.Mean([]float64{1}, []int{0}); return err },
		"zero count": func() error { _, err := Bootstrap{}.Distribution([]float64{1}, []int{0}); return err },
	} {
		if f() == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// intN draws what rand.Rand.IntN draws from the same PCG: for small and
// large n, powers of two and the bounds where the reduction rejects.
func TestIntNIsRandIntN(t *testing.T) {
	ns := []uint64{1, 2, 3, 5, 7, 64, 100, 1000, 2450, 1 << 20, 1<<31 + 1, 1<<62 + 3, 1<<63 + 1, math.MaxUint64/3 + 1}
	for seed := range uint64(4) {
		p, q := rand.NewPCG(seed, bootStream), rand.NewPCG(seed, bootStream)
		r := rand.New(q)
		for i := range 20000 {
			n := ns[i%len(ns)]
			if n > math.MaxInt {
				continue
			}
			if got, want := intN(p, n), r.IntN(int(n)); got != want {
				t.Fatalf("seed %d, draw %d, n %d: %d, want %d", seed, i, n, got, want)
			}
		}
	}
}
