package trainer

import (
	"math"
	"math/rand/v2"
	"testing"
)

// corrupt makes row errors of every kind Check reports, one to three at a
// time, in random rows, on samples with advantages.
func corrupt(rng *rand.Rand, b *Samples) {
	n := b.Len()
	for range 1 + rng.IntN(3) {
		i := rng.IntN(n)
		switch rng.IntN(9) {
		case 0:
			b.Actions[i] = uint8(3 + rng.IntN(253))
		case 1:
			b.Rewards[i] = math.NaN()
		case 2:
			b.Rewards[i] = math.Inf(1 - 2*rng.IntN(2))
		case 3:
			b.Adv[i] = math.NaN()
		case 4:
			b.Adv[i] = math.Inf(-1)
		case 5:
			b.LogProb[i] = math.Inf(1 - 2*rng.IntN(2))
		case 6:
			b.LogProb[i] = 0.5
		case 7:
			b.Features[rng.IntN(len(b.Features))] = float32(math.NaN())
		case 8:
			b.LogProb[i] = math.NaN() // absent: valid
		}
	}
}

func withAdv(b *Samples) *Samples {
	b.Adv = make([]float64, b.Len())
	for i := range b.Adv {
		b.Adv[i] = float64(i%3) - 1
	}
	return b
}

// TestRowsValidMatchesRowError: the branch-free check and the loops that
// word the error agree, also on rewards whose sum overflows.
func TestRowsValidMatchesRowError(t *testing.T) {
	s := newTestStepper(t, &recBackend{refBackend: refBackend{}}, DefaultStepConfig())
	rng := rand.New(rand.NewPCG(4, 4))
	for k := range 2000 {
		b := withAdv(testSamples(rng, s, 1+rng.IntN(9)))
		if k%2 == 0 {
			corrupt(rng, b)
		}
		if k%7 == 0 {
			b.Rewards[0], b.Adv[0] = math.MaxFloat64, -math.MaxFloat64
		}
		if got, want := rowsValid(b), b.rowError() == nil; got != want {
			t.Fatalf("case %d: rowsValid %v, rowError %v", k, got, b.rowError())
		}
	}
}

// TestStepRowErrorsAsCheck: Step checks the rows of a batch with advantages
// in its pass over them; its errors must be Check's (then the network
// index's), word for word, whatever else is wrong, and it must leave the
// state untouched and the metrics zero.
func TestStepRowErrorsAsCheck(t *testing.T) {
	be := &recBackend{refBackend: refBackend{}}
	s := newTestStepper(t, be, DefaultStepConfig())
	if _, err := s.AddNet(); err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(5, 5))
	for k := range 600 {
		b := testSamples(rng, s, 1+rng.IntN(9))
		if k%3 != 0 {
			withAdv(b)
		}
		if k%5 == 0 {
			// The sum overflows (with two rows or more); the rows are valid.
			b.Rewards[0], b.Rewards[b.Len()-1] = math.MaxFloat64, math.MaxFloat64
		}
		if k%4 != 3 {
			if b.Adv == nil {
				b.Adv = make([]float64, b.Len()) // corrupt's advantages, then dropped
				corrupt(rng, b)
				b.Adv = nil
			} else {
				corrupt(rng, b)
			}
		}
		b.Nets = make([]int32, b.Len())
		if k%6 == 0 {
			b.Nets[rng.IntN(b.Len())] = 2 // the stepper has two networks
		}
		want := b.Check(s.policy.In())
		if want == nil {
			want = s.checkNets(b.Nets, b.Len())
		}
		before, calls := snap(s), be.calls
		mt, err := s.Step(b, 1e-3)
		switch {
		case want != nil && (err == nil || err.Error() != want.Error()):
			t.Fatalf("case %d: %v, want %v", k, err, want)
		case want == nil && err != nil:
			if _, ok := err.(*NonFiniteError); !ok {
				t.Fatalf("case %d: %v, want no error of the samples", k, err)
			}
		case want != nil && (!before.equal(snap(s)) || be.calls != calls || mt != (Metrics{})):
			t.Fatalf("case %d: %v: state changed, backend called or metrics set", k, err)
		}
		if want == nil && err == nil && b.Rewards[0] == math.MaxFloat64 && mt.Reward != mean(b.Rewards) {
			t.Fatalf("case %d: reward %v, want %v", k, mt.Reward, mean(b.Rewards))
		}
	}
}

// TestGroupStatsMatchesPlain holds grouping.groupStats (contiguous groups
// read in place, the range in two lanes, the largest magnitude from it) to
// the plain formula: per group in order of first appearance, its rewards
// gathered in row order, meanStd's std and the range.
func TestGroupStatsMatchesPlain(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	for k := range 500 {
		n := 1 + rng.IntN(40)
		rewards, groups := make([]float64, n), make([]string, n)
		for i := range n {
			rewards[i] = math.Ldexp(float64(rng.IntN(7)-3), rng.IntN(9)-4)
			if k%5 == 0 {
				rewards[i] = rng.NormFloat64() * 1e-300
			}
			if k%2 == 0 {
				groups[i] = string(rune('a' + i/(1+k%6))) // contiguous runs
			} else {
				groups[i] = string(rune('a' + rng.IntN(4))) // interleaved
			}
		}
		var g grouping
		g.build(groups)
		gotStd, gotZero := g.groupStats(rewards)
		var keys []string
		by := map[string][]float64{}
		for i, key := range groups {
			if _, ok := by[key]; !ok {
				keys = append(keys, key)
			}
			by[key] = append(by[key], rewards[i])
		}
		wantStd, zero := 0.0, 0
		for _, key := range keys {
			r := by[key]
			_, sd := meanStd(r)
			wantStd += sd
			lo, hi := r[0], r[0]
			for _, v := range r {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
			if hi-lo <= rangeEps {
				zero++
			}
		}
		wantStd /= float64(len(keys))
		wantZero := float64(zero) / float64(len(keys))
		if math.Float64bits(gotStd) != math.Float64bits(wantStd) || gotZero != wantZero {
			t.Fatalf("case %d (%v): %v %v, want %v %v", k, groups, gotStd, gotZero, wantStd, wantZero)
		}
		if g.contig != sortedRuns(groups) {
			t.Fatalf("case %d: contig %v for %v", k, g.contig, groups)
		}
	}
}

// sortedRuns reports whether every key's rows form one run.
func sortedRuns(groups []string) bool {
	seen := map[string]bool{}
	for i, k := range groups {
		if i > 0 && k == groups[i-1] {
			continue
		}
		if seen[k] {
			return false
		}
		seen[k] = true
	}
	return true
}
