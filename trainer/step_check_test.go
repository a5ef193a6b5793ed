package trainer

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/mpdf/mpdf/nn"
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
		var h grouping // buildRuns, into a grouping used before
		h.build([]string{"z", "y", "z"})
		h.buildRuns(groups)
		runStd, runZero := h.groupStats(rewards)
		if math.Float64bits(runStd) != math.Float64bits(gotStd) || runZero != gotZero || h.contig != g.contig || !slices.Equal(h.keys, keys) {
			t.Fatalf("case %d (%v): buildRuns %v %v %v %v, build %v %v %v %v", k, groups, runStd, runZero, h.contig, h.keys, gotStd, gotZero, g.contig, keys)
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

// TestBatchMetricsMatchesPlain holds batchMetrics's one pass to the plain
// formulas, bit for bit: mean's sums, Go's min and max (−0 below +0, a NaN
// wins), counted actions, the float32 advantages and behaviour
// log-probabilities and the missing flag.
func TestBatchMetricsMatchesPlain(t *testing.T) {
	s := newTestStepper(t, &recBackend{refBackend: refBackend{}}, DefaultStepConfig())
	rng := rand.New(rand.NewPCG(7, 7))
	special := []float64{0, math.Copysign(0, -1), math.NaN(), math.Inf(1), math.Inf(-1), 1e308, -1e308, 0.5}
	for k := range 3000 {
		n := 1 + rng.IntN(12)
		b := &Samples{Actions: make([]uint8, n), Rewards: make([]float64, n), Adv: make([]float64, n), LogProb: make([]float64, n)}
		for i := range n {
			b.Actions[i] = uint8(rng.IntN(3))
			b.Rewards[i] = float64(rng.IntN(5) - 2)
			b.Adv[i] = float64(rng.IntN(5)-2) * 0.25
			b.LogProb[i] = -rng.Float64()
			if rng.IntN(4) == 0 {
				b.Adv[i] = special[rng.IntN(len(special))]
			}
			if rng.IntN(6) == 0 {
				b.Rewards[i] = special[rng.IntN(len(special))]
			}
			if rng.IntN(6) == 0 {
				b.LogProb[i] = special[rng.IntN(len(special))]
			}
		}
		if k%3 == 0 {
			b.LogProb = nil
		}
		var mt Metrics
		missing, suspect := s.batchMetrics(&mt, b, b.Adv, &groupSummary{})
		lo, hi := math.Inf(1), math.Inf(-1)
		var count [3]int
		for i, a := range b.Adv {
			lo, hi = min(lo, a), max(hi, a)
			count[b.Actions[i]]++
		}
		// NaN for NaN: which of two NaN operands an add keeps (its payload)
		// depends on the instruction's operand order, not on the sums'.
		same := func(x, y float64) bool {
			return math.Float64bits(x) == math.Float64bits(y) || math.IsNaN(x) && math.IsNaN(y)
		}
		if !same(mt.AdvMin, lo) || !same(mt.AdvMax, hi) || !same(mt.AdvMean, mean(b.Adv)) || !same(mt.Reward, mean(b.Rewards)) ||
			mt.ActPersist != float64(count[0])/float64(n) || mt.ActRefine != float64(count[1])/float64(n) || mt.ActConcede != float64(count[2])/float64(n) {
			t.Fatalf("case %d: %+v for %+v", k, mt, b)
		}
		wantMissing, wantSuspect := b.LogProb == nil, b.rowError() != nil
		for i := range n {
			if !same(float64(s.batch.Adv[i]), float64(float32(b.Adv[i]))) {
				t.Fatalf("case %d: advantage %d", k, i)
			}
			if b.LogProb != nil {
				wantMissing = wantMissing || math.IsNaN(b.LogProb[i])
				if lp := b.LogProb[i]; !math.IsNaN(lp) && !same(float64(s.batch.BehLogp[i]), float64(float32(lp))) {
					t.Fatalf("case %d: log-probability %d", k, i)
				}
			}
		}
		if missing != wantMissing || (wantSuspect && !suspect) {
			t.Fatalf("case %d: missing %v suspect %v, want %v %v (%+v)", k, missing, suspect, wantMissing, wantSuspect, b)
		}
	}
}

// TestPow2Exp holds pow2Exp and ldexpBy to math.Frexp and math.Ldexp over
// the whole exponent range, subnormals and the edges included.
func TestPow2Exp(t *testing.T) {
	rng := rand.New(rand.NewPCG(10, 10))
	for k := range 200000 {
		amax := math.Ldexp(0.5+rng.Float64()/2, rng.IntN(2200)-1100)
		if k%97 == 0 {
			amax = []float64{math.SmallestNonzeroFloat64, 0x1p-1022, 0x1p-1021, 0x1p1022, math.MaxFloat64, 1, 0.5}[k/97%7]
		}
		if math.IsInf(amax, 0) || amax == 0 {
			continue // rewards are finite; a zero amax never gets here
		}
		e, inv, scale, ok := pow2Exp(amax)
		_, want := math.Frexp(amax)
		if ok && (e != want || inv != math.Ldexp(1, -e) || scale != math.Ldexp(1, e)) {
			t.Fatalf("pow2Exp(%v) = %d %v %v, want %d", amax, e, inv, scale, want)
		}
		if !ok && want >= -1021 && want <= 1022 && amax >= 0x1p-1022 {
			t.Fatalf("pow2Exp(%v) refused exponent %d", amax, want)
		}
		if ok {
			x := rng.Float64() * math.Ldexp(1, -rng.IntN(80))
			if k%5 == 0 {
				x = 0
			}
			if got, want := ldexpBy(x, e, scale), math.Ldexp(x, e); math.Float64bits(got) != math.Float64bits(want) {
				t.Fatalf("ldexpBy(%v, %d) = %v, want %v", x, e, got, want)
			}
		}
	}
}

// TestKernelBackendOverwritesGrad: Step leaves the gradient buffer as the
// last step left it for a KernelBackend that overwritesGrad, so its
// LossAndGrad must give the same bits into a buffer of garbage as into a
// zeroed one, for both losses and batches that take one or two threads.
func TestKernelBackendOverwritesGrad(t *testing.T) {
	for _, loss := range []nn.LossConfig{nn.DefaultLoss(), {EpsLow: 0.2, EpsHigh: 0.28, Beta: 0.5, Entropy: 0.01, Kind: nn.LossRankMatch}} {
		for _, rows := range []int{5, 300} {
			pol := testMLP(t, []int{testF, 8, 3}, nn.Tanh, 3)
			kb, err := NewKernelBackend(pol.Sizes, pol.Act, loss, 2)
			if err != nil {
				t.Fatal(err)
			}
			if !kb.overwritesGrad() {
				t.Fatal("an MLP's kernel backend does not overwrite the gradient")
			}
			s, err := NewStepper(kb, pol, pol, DefaultStepConfig())
			if err != nil {
				t.Fatal(err)
			}
			b := withAdv(testSamples(rand.New(rand.NewPCG(11, uint64(rows))), s, rows))
			if _, err := s.Step(b, 0); err != nil { // fills s.batch
				t.Fatal(err)
			}
			zeroed, dirty := make([]float32, len(pol.Params)), make([]float32, len(pol.Params))
			for i := range dirty {
				dirty[i] = float32(math.NaN())
			}
			if _, err := kb.LossAndGrad(zeroed, pol, &s.batch); err != nil {
				t.Fatal(err)
			}
			if _, err := kb.LossAndGrad(dirty, pol, &s.batch); err != nil {
				t.Fatal(err)
			}
			for i := range zeroed {
				if math.Float32bits(zeroed[i]) != math.Float32bits(dirty[i]) {
					t.Fatalf("%v, %d rows: grad[%d] %v into garbage, %v into zeros", loss.Kind, rows, i, dirty[i], zeroed[i])
				}
			}
			kb.Close()
		}
	}
}

// TestCountActions holds the word-at-a-time counts to a loop, for lengths
// around a word and actions above 2 anywhere.
func TestCountActions(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 12))
	for k := range 20000 {
		acts := make([]uint8, rng.IntN(40))
		for i := range acts {
			acts[i] = uint8(rng.IntN(3))
			if k%3 == 0 && rng.IntN(20) == 0 {
				acts[i] = uint8(3 + rng.IntN(253))
			}
		}
		var r, c, a int
		for _, x := range acts {
			switch {
			case x == 1:
				r++
			case x == 2:
				c++
			case x > 2:
				a = 1
			}
		}
		gr, gc, ga := countActions(acts)
		if ga != a || a == 0 && (gr != r || gc != c) {
			t.Fatalf("%v: %d %d %d, want %d %d %d", acts, gr, gc, ga, r, c, a)
		}
	}
}
