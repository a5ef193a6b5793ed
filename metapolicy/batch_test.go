package metapolicy

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/nn"
)

// batchRows returns observations as a runner batches them: whole teams
// (every agent of a deliberation in order, sharing its states and history),
// lone rows, and teams cut short, in a random mix.
func batchRows(rng *rand.Rand, n int) []Observation {
	var out []Observation
	for len(out) < n {
		team := randomTeam(rng)
		for team.History == nil { // baselines such as gate need it
			randomHistory(rng, team)
		}
		k := len(team.Agents)
		from, to := 0, k
		switch rng.IntN(4) {
		case 0: // one agent
			from = rng.IntN(k)
			to = from + 1
		case 1: // the tail of a team
			from = 1 + rng.IntN(k-1)
		}
		for s := from; s < to; s++ {
			o := *team
			o.Self = s
			out = append(out, o)
		}
	}
	return out
}

// TestProbsBatchIsProbs: every batched policy — the learned ones over both
// feature layouts and either activation, greedy wrappers and plain policies
// through Batch — gives each row's distribution bit for bit as Probs gives
// it one observation at a time.
func TestProbsBatchIsProbs(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 1))
	var pols []Policy
	for _, fz := range Featurizers() {
		for _, act := range []nn.Activation{nn.Tanh, nn.ReLU} {
			net, err := nn.NewMLP[float32]([]int{fz.Width, 64, 64, NumActions}, act)
			if err != nil {
				t.Fatal(err)
			}
			net.Init(rng.Uint64())
			fp, err := NewFeaturizedPolicy(fmt.Sprintf("%s/%v", fz.Version, act), net, fz)
			if err != nil {
				t.Fatal(err)
			}
			pols = append(pols, fp, GreedyPolicy{fp})
			if fz.Version == FeatureVersion {
				mp, _ := NewMLPPolicy("mlp/"+act.String(), net)
				pols = append(pols, mp)
			}
		}
	}
	for _, name := range HeuristicNames() {
		h, err := ParseHeuristic(name)
		if err != nil {
			t.Fatal(err)
		}
		pols = append(pols, h, GreedyPolicy{h})
	}
	for trial := range 40 {
		all := batchRows(rng, 1+rng.IntN(80))
		var small []Observation // peers-v1 refuses teams of more than 8
		for _, o := range all {
			if len(o.Agents) <= MaxPeersTeam {
				small = append(small, o)
			}
		}
		for _, pol := range pols {
			obs := all
			if strings.HasPrefix(pol.Name(), FeatureVersionPeers) {
				obs = small
			}
			got := make([][NumActions]float64, len(obs))
			if err := Batch(pol).ProbsBatch(got, obs); err != nil {
				t.Fatalf("trial %d: %s: %v", trial, pol.Name(), err)
			}
			for i := range obs {
				var want [NumActions]float64
				if err := pol.Probs(&want, &obs[i]); err != nil {
					t.Fatal(err)
				}
				for a := range want {
					if math.Float64bits(got[i][a]) != math.Float64bits(want[a]) {
						t.Fatalf("trial %d: %s: row %d of %d: ProbsBatch %v, Probs %v", trial, pol.Name(), i, len(obs), got[i], want)
					}
				}
			}
		}
	}
}

// TestProbsBatchNamesFailingRow: a bad observation in a batch fails it with
// a RowError naming the row and carrying Probs' own error; rows before it
// are written, and a bad agent inside a whole team is found too.
func TestProbsBatchNamesFailingRow(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 2))
	net, _ := nn.NewMLP[float32]([]int{FeatureWidthV2, 16, NumActions}, nn.Tanh)
	net.Init(3)
	fz, _ := FeaturizerFor(FeatureVersionV2)
	fp, _ := NewFeaturizedPolicy("v2", net, fz)
	for _, pol := range []Policy{fp, GreedyPolicy{fp}, mustHeuristic(t, HeuristicGate)} {
		obs := batchRows(rng, 30)
		bad := 5 + rng.IntN(len(obs)-5)
		team := append([]AgentState(nil), obs[bad].Agents...)
		team[obs[bad].Self].Confidence = 1.5 // out of [0, 1]
		for i := range obs {                 // the whole team of the bad row sees it
			if same(obs[i].Agents, obs[bad].Agents) && i != bad {
				obs[i].Agents = team
			}
		}
		obs[bad].Agents = team
		var want [NumActions]float64
		wantErr := pol.Probs(&want, &obs[bad])
		if wantErr == nil {
			t.Fatalf("%s: Probs accepted confidence 1.5", pol.Name())
		}
		got := make([][NumActions]float64, len(obs))
		err := Batch(pol).ProbsBatch(got, obs)
		var re *RowError
		if !errors.As(err, &re) || re.Row > bad || re.Err.Error() != wantErr.Error() && re.Row == bad {
			t.Fatalf("%s: error %v, want row %d: %v", pol.Name(), err, bad, wantErr)
		}
		for i := range obs[:re.Row] {
			var p [NumActions]float64
			if err := pol.Probs(&p, &obs[i]); err != nil {
				t.Fatalf("%s: row %d: %v", pol.Name(), i, err)
			}
			if p != got[i] {
				t.Fatalf("%s: row %d before the failure: %v, want %v", pol.Name(), i, got[i], p)
			}
		}
	}
}

func mustHeuristic(t *testing.T, name string) Policy {
	t.Helper()
	h, err := ParseHeuristic(name)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestSampleFromIsSample: SampleFrom and GreedyFrom make the draws and
// choices Sample and Greedy make.
func TestSampleFromIsSample(t *testing.T) {
	for _, p := range []fixed{{0.2, 0, 0.8}, {1, 0, 0}, {0, 0, 1}, {1. / 3, 1. / 3, 1. / 3}} {
		r1, r2 := rand.New(rand.NewPCG(4, 5)), rand.New(rand.NewPCG(4, 5))
		pr := [NumActions]float64(p)
		for range 200 {
			a, lp, _ := Sample(p, &Observation{}, r1)
			b, lq := SampleFrom(&pr, r2)
			if a != b || math.Float64bits(lp) != math.Float64bits(lq) {
				t.Fatalf("%v: Sample %v %v, SampleFrom %v %v", p, a, lp, b, lq)
			}
		}
		a, lp, _ := Greedy(p, &Observation{})
		b, lq := GreedyFrom(&pr)
		if a != b || lp != lq {
			t.Fatalf("%v: Greedy %v %v, GreedyFrom %v %v", p, a, lp, b, lq)
		}
	}
}

// BenchmarkProbsBatch: a learned policy (v2 features, 64×64 tanh) deciding
// the rounds of 64 three-agent deliberations, one Probs call per decision
// against one ProbsBatch call for all 192; ns/decision is per decision.
func BenchmarkProbsBatch(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	fz, _ := FeaturizerFor(FeatureVersionV2)
	net, _ := nn.NewMLP[float32]([]int{fz.Width, 64, 64, NumActions}, nn.Tanh)
	net.Init(1)
	pol, _ := NewFeaturizedPolicy("v2", net, fz)
	var obs []Observation
	for len(obs) < 192 {
		team := randomTeam(rng)
		if len(team.Agents) < 3 {
			continue
		}
		team.Agents = team.Agents[:3]
		randomHistory(rng, team)
		for s := range 3 {
			o := *team
			o.Self = s
			obs = append(obs, o)
		}
	}
	p := make([][NumActions]float64, len(obs))
	b.Run("per-decision", func(b *testing.B) {
		for b.Loop() {
			for i := range obs {
				if err := pol.Probs(&p[i], &obs[i]); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(obs)), "ns/decision")
	})
	b.Run("batched", func(b *testing.B) {
		for b.Loop() {
			if err := pol.ProbsBatch(p, obs); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(obs)), "ns/decision")
	})
}

// TestProbsBatchRepeatedRows: a batch whose rows repeat (the episodes of
// one task before their draws differ), interleaved and out of order, gives
// every row Probs' distribution bit for bit, and runs each distinct row
// once.
func TestProbsBatchRepeatedRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	fz, err := FeaturizerFor(FeatureVersionV2) // the replay recipe's layout
	if err != nil {
		t.Fatal(err)
	}
	net, err := nn.NewMLP[float32]([]int{fz.Width, 64, 64, NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	net.Init(7)
	fp, err := NewFeaturizedPolicy("v", net, fz)
	if err != nil {
		t.Fatal(err)
	}
	for trial := range 20 {
		base := batchRows(rng, 2+rng.IntN(30))
		obs := append([]Observation(nil), base...)
		for range 1 + rng.IntN(60) {
			obs = append(obs, base[rng.IntN(len(base))])
		}
		rng.Shuffle(len(obs), func(i, j int) { obs[i], obs[j] = obs[j], obs[i] })
		got := make([][NumActions]float64, len(obs))
		if err := fp.ProbsBatch(got, obs); err != nil {
			t.Fatal(err)
		}
		for i := range obs {
			var want [NumActions]float64
			if err := fp.Probs(&want, &obs[i]); err != nil {
				t.Fatal(err)
			}
			for a := range want {
				if math.Float64bits(got[i][a]) != math.Float64bits(want[a]) {
					t.Fatalf("trial %d: row %d of %d: ProbsBatch %v, Probs %v", trial, i, len(obs), got[i], want)
				}
			}
		}
		// Each distinct row once: as many as distinct feature vectors.
		var s forwardScratch
		s.x = make([]float32, len(obs)*fz.Width)
		distinct := map[string]bool{}
		f := make([]float64, fz.Width)
		for i := range obs {
			clear(f)
			if err := fz.Featurize(f, &obs[i]); err != nil {
				t.Fatal(err)
			}
			widen(s.x[i*fz.Width:(i+1)*fz.Width], f)
			distinct[fmt.Sprint(s.x[i*fz.Width:(i+1)*fz.Width])] = true
		}
		if u := uniqueRows(&s, len(obs), fz.Width); u != len(distinct) || u >= len(obs) {
			t.Fatalf("trial %d: %d rows run of %d, want the %d distinct", trial, u, len(obs), len(distinct))
		}
		for i := range obs {
			if !sameBits(s.ux[s.of[i]*fz.Width:(s.of[i]+1)*fz.Width], s.x[i*fz.Width:(i+1)*fz.Width]) {
				t.Fatalf("trial %d: row %d numbered as another", trial, i)
			}
		}
	}
}
