package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// PairedDiffs gives each request PairedDiff's interval, bit for bit:
// requests of several cluster counts interleaved, paired and not, with
// clusters of unequal sizes; and the first refused request's error.
func TestPairedDiffsIsPairedDiff(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var reqs []Paired
	for i := range 30 {
		n := []int{1, 7, 40, 40, 300}[i%5]
		groups := []int{1, 3, 11, 11, 97}[i%5]
		r := Paired{X: make([]float64, n), Cluster: make([]int, n)}
		if i%3 != 0 {
			r.Y = make([]float64, n)
		}
		for k := range n {
			r.X[k] = float64(rng.IntN(2))
			if r.Y != nil {
				r.Y[k] = rng.Float64()
			}
			r.Cluster[k] = 1000 + rng.IntN(groups)
		}
		reqs = append(reqs, r)
	}
	for _, b := range []Bootstrap{{Seed: 3}, {Resamples: 999, Level: 0.9, Seed: 8}} {
		got, err := b.PairedDiffs(reqs)
		if err != nil {
			t.Fatal(err)
		}
		for i, r := range reqs {
			want, err := b.PairedDiff(r.X, r.Y, r.Cluster)
			if err != nil {
				t.Fatal(err)
			}
			g := got[i]
			if math.Float64bits(g.Estimate) != math.Float64bits(want.Estimate) ||
				math.Float64bits(g.Low) != math.Float64bits(want.Low) || math.Float64bits(g.High) != math.Float64bits(want.High) {
				t.Errorf("%+v: request %d: %+v, PairedDiff %+v", b, i, g, want)
			}
		}
	}
	bad := append([]Paired(nil), reqs...)
	bad[4] = Paired{X: []float64{1, math.NaN()}, Cluster: []int{1, 2}}
	bad[9] = Paired{X: []float64{1}, Cluster: nil}
	_, err := Bootstrap{}.PairedDiffs(bad)
	var pe *PairedError
	_, want := Bootstrap{}.PairedDiff(bad[4].X, bad[4].Y, bad[4].Cluster)
	if !errors.As(err, &pe) || pe.Index != 4 || want == nil || pe.Err.Error() != want.Error() {
		t.Errorf("bad requests 4 and 9: %v, want request 4: %v", err, want)
	}
	_, err = Bootstrap{Resamples: -1}.PairedDiffs(reqs)
	_, want = Bootstrap{Resamples: -1}.PairedDiff(reqs[0].X, reqs[0].Y, reqs[0].Cluster)
	if !errors.As(err, &pe) || pe.Index != 0 || want == nil || pe.Err.Error() != want.Error() {
		t.Errorf("bad resamples: %v, want request 0: %v", err, want)
	}
}
