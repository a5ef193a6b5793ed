package metapolicy

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestFeaturizeV2KnownValues(t *testing.T) {
	// Round 2 of 2, agent 0, which moved 5 → 7. Round 0: 5, 7, 7 (team 7);
	// round 1: 7, 7, 9.
	obs := Observation{Self: 0, Round: 2, Rounds: 2,
		Agents:  []AgentState{agent("7", Missing, 100), agent("7", Missing, 200), agent("9", Missing, 300)},
		History: [][]string{{"5", "7", "7"}, {"7", "7", "9"}},
	}
	f := make([]float64, FeatureWidthV2)
	if err := FeaturizeV2(f, &obs); err != nil {
		t.Fatal(err)
	}
	v1 := make([]float64, FeatureWidth)
	if err := Featurize(v1, &obs); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f[:FeatureWidth], v1) {
		t.Errorf("v2 prefix %v differs from v1 %v", f[:FeatureWidth], v1)
	}
	want := map[int]float64{
		FHistoryMissing: 0, FChangedLast: 1, FChanges: 0.5, FOwnIsFirst: 0, FOwnIsFirstTeam: 1,
		FPeersChanged: 0.5, FMajorityDelta: 0, FOwnSupportDelta: 0, FTeamStable: 1,
		FMargin: 1.0 / 3, FOwnMargin: 1.0 / 3,
		FRelTokens: v1[FTokens] - v1[FPeerTokens], FRelSteps: 0, FRelHedges: 0,
	}
	for i, w := range want {
		if math.Abs(f[i]-w) > 1e-12 {
			t.Errorf("feature %d = %v, want %v", i, f[i], w)
		}
	}
	// Agent 2 changed 7 → 9 last round and now stands alone.
	obs.Self = 2
	if err := FeaturizeV2(f, &obs); err != nil {
		t.Fatal(err)
	}
	for i, w := range map[int]float64{FChangedLast: 1, FOwnIsFirst: 0, FOwnIsFirstTeam: 0, FPeersChanged: 0.5,
		FOwnSupportDelta: 1.0 / 3, FOwnMargin: -1.0 / 3} {
		if math.Abs(f[i]-w) > 1e-12 {
			t.Errorf("agent 2: feature %d = %v, want %v", i, f[i], w)
		}
	}
}

func TestFeaturizeV2MissingHistory(t *testing.T) {
	obs := Observation{Self: 0, Round: 1, Rounds: 2, Agents: []AgentState{agent("1", Missing, 1), agent("2", Missing, 1)}}
	f := make([]float64, FeatureWidthV2)
	if err := FeaturizeV2(f, &obs); err != nil {
		t.Fatal(err)
	}
	if f[FHistoryMissing] != 1 || f[FOwnIsFirst] != 0 {
		t.Errorf("missing history: flag %v, own-is-first %v; want 1, 0", f[FHistoryMissing], f[FOwnIsFirst])
	}
	obs.History = [][]string{{"1", "2"}, {"1", "2"}} // two rows in round 1
	if err := FeaturizeV2(f, &obs); err == nil {
		t.Error("a history longer than the round was accepted")
	}
	if err := FeaturizeV2(make([]float64, FeatureWidth), &obs); err == nil {
		t.Error("a v1-width vector was accepted")
	}
}

func TestFeaturizerFor(t *testing.T) {
	for v, w := range map[string]int{"": FeatureWidth, FeatureVersion: FeatureWidth, FeatureVersionV2: FeatureWidthV2} {
		fz, err := FeaturizerFor(v)
		if err != nil || fz.Width != w {
			t.Errorf("FeaturizerFor(%q): width %d, err %v; want %d", v, fz.Width, err, w)
		}
	}
	if _, err := FeaturizerFor("mpdf-features/v9"); err == nil {
		t.Error("unknown version accepted")
	}
}

// randomHistory gives obs a random history consistent with its agents
// (answers from the same small pool, so rounds tie and repeat), or none.
func randomHistory(rng *rand.Rand, obs *Observation) {
	if rng.IntN(4) == 0 {
		obs.History = nil
		return
	}
	obs.History = make([][]string, obs.Round)
	for r := range obs.History {
		row := make([]string, len(obs.Agents))
		for i := range row {
			switch {
			case r == obs.Round-1:
				row[i] = obs.Agents[i].Answer
			case rng.IntN(6) != 0:
				row[i] = string(rune('a' + rng.IntN(1+rng.IntN(5))))
			}
		}
		obs.History[r] = row
	}
}

// TestFeaturizeV2MatchesReference holds FeaturizeV2 to its first
// implementation (featurizeV2Ref, kept below), bit for bit, on random
// observations with and without a history.
func TestFeaturizeV2MatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 3))
	got, want := make([]float64, FeatureWidthV2), make([]float64, FeatureWidthV2)
	for trial := range 20000 {
		obs := randomTeam(rng)
		randomHistory(rng, obs)
		obs.Self = rng.IntN(len(obs.Agents))
		if err := FeaturizeV2(got, obs); err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		if err := featurizeV2Ref(want, obs); err != nil {
			t.Fatalf("trial %d: reference: %v", trial, err)
		}
		for k := range got {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Fatalf("trial %d feature %s: %v, reference %v", trial, FeatureName(k), got[k], want[k])
			}
		}
	}
}

// TestFeaturizeTeamV2EqualsFeaturizeV2: every row, bit for bit, is
// FeaturizeV2's for that agent; the targets and team are ConcedeTarget's
// and TeamAnswer's. Teams go past the 16-agent stack buffers.
func TestFeaturizeTeamV2EqualsFeaturizeV2(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 4))
	withHistory := 0
	for trial := range 20000 {
		obs := randomTeam(rng)
		randomHistory(rng, obs)
		if obs.History != nil {
			withHistory++
		}
		checkTeamRows(t, trial, obs, rng, FeatureWidthV2, "FeaturizeV2", FeaturizeTeamV2, FeaturizeV2)
	}
	if withHistory < 10000 {
		t.Fatalf("only %d of 20000 trials had a history", withHistory)
	}
}

func TestFeaturizeTeamV2Rejects(t *testing.T) {
	obs := &Observation{Round: 2, Rounds: 2, Agents: []AgentState{{Answer: "1"}, {Answer: "2"}},
		History: [][]string{{"1", "1"}, {"1", "2"}}}
	for _, c := range []struct {
		dst, targets int
		mutate       func(*Observation)
		want         string
	}{
		{dst: 2 * FeatureWidth, targets: 2, want: "feature matrix of length 52, want 2×40"},
		{dst: 2 * FeatureWidthV2, targets: 1, want: "1 concede targets for 2 agents"},
		{dst: 2 * FeatureWidthV2, targets: 2, mutate: func(o *Observation) { o.History = o.History[:1] }, want: "history of 1 rounds in round 2"},
		{dst: 2 * FeatureWidthV2, targets: 2, mutate: func(o *Observation) { o.History[1] = []string{"1", "3"} }, want: `agent 1 answer "3"`},
		{dst: 2 * FeatureWidthV2, targets: 2, mutate: func(o *Observation) { o.History[0] = []string{"1"} }, want: "history round 0 has 1 answers"},
	} {
		o := *obs
		o.History = [][]string{slices.Clone(obs.History[0]), slices.Clone(obs.History[1])}
		if c.mutate != nil {
			c.mutate(&o)
		}
		_, err := FeaturizeTeamV2(make([]float64, c.dst), make([]string, c.targets), &o)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want an error containing %q", err, c.want)
		}
	}
}

// FeaturizeTeamV2's doc promises no allocation for teams of up to 16
// agents, with a history or without.
func TestFeaturizeTeamV2AllocatesNothing(t *testing.T) {
	obs := &Observation{Round: 3, Rounds: 3, Agents: []AgentState{
		{Answer: "18", Confidence: 0.9, Profile: Profile{Steps: 4, Tokens: 200, Hedges: 2, SelfConfidence: Missing}},
		{Answer: "16", Confidence: Missing, Profile: Profile{Steps: 2, SelfConfidence: 0.5}},
		{Answer: "", Confidence: 0.2, Profile: Profile{SelfConfidence: Missing}},
	}, History: [][]string{{"16", "16", "3"}, {"18", "16", ""}, {"18", "16", ""}}}
	dst := make([]float64, len(obs.Agents)*FeatureWidthV2)
	targets := make([]string, len(obs.Agents))
	for _, h := range [][][]string{obs.History, nil} {
		obs.History = h
		if a := testing.AllocsPerRun(100, func() {
			if _, err := FeaturizeTeamV2(dst, targets, obs); err != nil {
				t.Fatal(err)
			}
		}); a != 0 {
			t.Errorf("history %v: FeaturizeTeamV2 allocates %v times per call, want 0", h != nil, a)
		}
	}
}

// featurizeV2Ref is FeaturizeV2 as first written, one agent at a time with
// the package's general helpers: the reference its faster form is held to.
func featurizeV2Ref(dst []float64, obs *Observation) error {
	if err := Featurize(dst[:FeatureWidth], obs); err != nil {
		return err
	}
	ext := dst[FeatureWidth:]
	clear(ext)
	n := len(obs.Agents)
	self := obs.Agents[obs.Self]
	now := make([]string, n)
	for i, a := range obs.Agents {
		now[i] = a.Answer
	}
	first, second, own := voteStatsRef(now, self.Answer)
	dst[FMargin] = float64(first-second) / float64(n)
	best := 0 // votes of the best answer other than own
	for _, t := range appendTallies(nil, now, nil, -1) {
		if t.answer != self.Answer {
			best = max(best, t.votes)
		}
	}
	dst[FOwnMargin] = float64(own-best) / float64(n)
	dst[FRelTokens] = dst[FTokens] - dst[FPeerTokens]
	dst[FRelSteps] = dst[FSteps] - dst[FPeerSteps]
	hedges := 0.0
	for i, a := range obs.Agents {
		if i != obs.Self {
			hedges += squash(a.Profile.Hedges, 16) / float64(n-1)
		}
	}
	dst[FRelHedges] = dst[FHedges] - hedges

	if obs.History == nil {
		dst[FHistoryMissing] = 1
		return nil
	}
	h := obs.History
	r0 := h[0]
	dst[FOwnIsFirst] = flag(self.Answer == r0[obs.Self])
	dst[FOwnIsFirstTeam] = flag(self.Answer != "" && self.Answer == TeamAnswer(r0, nil, -1))
	changes := 0
	for r := 1; r < len(h); r++ {
		if h[r][obs.Self] != h[r-1][obs.Self] {
			changes++
		}
	}
	dst[FChanges] = float64(changes) / float64(obs.Rounds)
	dst[FTeamStable] = 1
	if len(h) >= 2 {
		before := h[len(h)-2]
		dst[FChangedLast] = flag(self.Answer != before[obs.Self])
		moved := 0
		for i := range n {
			if i != obs.Self && now[i] != before[i] {
				moved++
			}
		}
		dst[FPeersChanged] = float64(moved) / float64(n-1)
		pf, _, pown := voteStatsRef(before, self.Answer)
		dst[FMajorityDelta] = float64(first-pf) / float64(n)
		dst[FOwnSupportDelta] = float64(own-pown) / float64(n)
		dst[FTeamStable] = flag(TeamAnswer(now, nil, -1) == TeamAnswer(before, nil, -1))
	}
	return nil
}

func voteStatsRef(answers []string, own string) (first, second, ownVotes int) {
	for _, t := range appendTallies(nil, answers, nil, -1) {
		switch {
		case t.votes > first:
			first, second = t.votes, first
		case t.votes > second:
			second = t.votes
		}
		if t.answer == own {
			ownVotes = t.votes
		}
	}
	return first, second, ownVotes
}
