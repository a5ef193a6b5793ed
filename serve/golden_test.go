package serve

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
)

var update = flag.Bool("update", false, "rewrite the feature golden files python/tests/testdata/features_v*.json")

// The golden files hold Go's features of a corpus of states, per layout,
// for the pure-Python featurizer's test (python/tests/test_features.py).
const (
	goldenPath      = "../python/tests/testdata/features_v1.json"
	goldenPathV2    = "../python/tests/testdata/features_v2.json"
	goldenPathPeers = "../python/tests/testdata/features_peers_v1.json"
)

type goldenAgent struct {
	Answer     string   `json:"answer"`
	Confidence *float64 `json:"confidence"`
	Steps      int      `json:"steps"`
	Tokens     int      `json:"tokens"`
	Hedges     int      `json:"hedges"`
	SelfConf   *float64 `json:"self_confidence"`
}

type goldenCase struct {
	Round  int           `json:"round"`
	Rounds int           `json:"rounds"`
	Agents []goldenAgent `json:"agents"`
	// History is the observation's History (v2 only; absent = nil).
	History [][]string `json:"history,omitempty"`
	// Features[i] is the layout's vector for agent i as self.
	Features [][]float64 `json:"features"`
}

type golden struct {
	FeatureVersion string       `json:"feature_version"`
	Width          int          `json:"width"`
	Cases          []goldenCase `json:"cases"`
}

// goldenStates is the corpus: random deliberations of every shape the
// featurizer distinguishes, and hand-made corners (no answers at all, one
// answer shared by all, exact confidence ties, large teams and counts).
func goldenStates() []Deliberation {
	rng := rand.New(rand.NewPCG(2026, 15))
	var ds []Deliberation
	for i := range 160 {
		ds = append(ds, randomDeliberation(rng, i))
	}
	str := func(s string) *string { return &s }
	f := func(v float64) *float64 { return &v }
	tenth, fifth := 0.1, 0.2 // summed at run time: 0.30000000000000004, a near tie with 0.3
	ds = append(ds,
		Deliberation{Round: 1, Rounds: 1, Agents: []Agent{{}, {}}},
		Deliberation{Round: 2, Rounds: 3, Agents: []Agent{{Answer: str("7")}, {Answer: str("7")}, {Answer: str("7")}}},
		Deliberation{Round: 1, Rounds: 2, Agents: []Agent{
			{Answer: str("1"), Confidence: f(0.3)}, {Answer: str("2"), Confidence: f(0.1)}, {Answer: str("2"), Confidence: f(0.2)},
			{Answer: str("1"), Confidence: f(tenth + fifth)}, {Answer: str("3"), Confidence: f(0.6)}}},
		Deliberation{Round: 3, Rounds: 3, Agents: []Agent{
			{Answer: str(""), Confidence: f(1), Profile: &Profile{Steps: 1 << 20, Tokens: 1 << 30, Hedges: 999}},
			{Answer: str("x"), Confidence: f(0)}, {Answer: str("y"), Confidence: f(0)}}},
	)
	big := Deliberation{Round: 2, Rounds: 5}
	for i := range 12 {
		c := float64(i%4) / 4
		big.Agents = append(big.Agents, Agent{Answer: str(string(rune('a' + i%5))), Confidence: &c,
			Profile: &Profile{Steps: i, Tokens: 100 * i, Hedges: i % 3, SelfConfidence: f(float64(i) / 12)}})
	}
	return append(ds, big)
}

// goldenStatesV2 is goldenStates with a random history consistent with the
// agents for two deliberations in three (the rest have none), and
// hand-made histories: answers flipping every round, all changed at once.
func goldenStatesV2() []Deliberation {
	rng := rand.New(rand.NewPCG(2026, 16))
	ds := goldenStates()
	for i := range ds {
		if i%3 > 0 {
			ds[i] = withHistoryAnswers(rng, ds[i])
		}
	}
	str := func(s string) *string { return &s }
	return append(ds,
		Deliberation{Round: 3, Rounds: 4, Agents: []Agent{{Answer: str("1")}, {Answer: str("2")}, {Answer: str("2")}},
			History: [][]string{{"1", "1", "2"}, {"2", "1", "1"}, {"1", "2", "2"}}},
		Deliberation{Round: 2, Rounds: 2, Agents: []Agent{{Answer: str("9")}, {Answer: str("9")}, {}},
			History: [][]string{{"", "3", "4"}, {"9", "9", ""}}},
	)
}

// goldenStatesPeers is goldenStates' teams of 2..8 agents (peers-v1 refuses
// larger ones) and an 8-agent team with every kind of peer.
func goldenStatesPeers() []Deliberation {
	var ds []Deliberation
	for _, d := range goldenStates() {
		if len(d.Agents) <= metapolicy.MaxPeersTeam {
			ds = append(ds, d)
		}
	}
	str := func(s string) *string { return &s }
	f := func(v float64) *float64 { return &v }
	eight := Deliberation{Round: 1, Rounds: 2}
	for i := range 8 {
		a := Agent{Answer: str([]string{"a", "b", "", "a", "c", "b", "a", ""}[i])}
		if i%3 != 1 {
			a.Confidence = f(float64(i) / 8)
		}
		if i%2 == 0 {
			a.Profile = &Profile{Steps: i, Tokens: 50 * i, Hedges: i % 4, SelfConfidence: f(float64(7-i) / 7)}
		}
		eight.Agents = append(eight.Agents, a)
	}
	return append(ds, eight)
}

// withHistoryAnswers is withHistory for agents whose answers may be unset.
func withHistoryAnswers(rng *rand.Rand, d Deliberation) Deliberation {
	for i := range d.Agents {
		if d.Agents[i].Answer == nil {
			s := ""
			d.Agents[i].Answer = &s
		}
	}
	return withHistory(rng, d)
}

func buildGolden(t *testing.T) []byte {
	return buildGoldenFor(t, metapolicy.FeatureVersion, goldenStates())
}

func buildGoldenFor(t *testing.T, version string, states []Deliberation) []byte {
	fz, err := metapolicy.FeaturizerFor(version)
	if err != nil {
		t.Fatal(err)
	}
	g := golden{FeatureVersion: fz.Version, Width: fz.Width}
	nul := func(v float64) *float64 {
		if metapolicy.Known(v) {
			return &v
		}
		return nil
	}
	for _, d := range states {
		v, ferr := d.check("")
		if ferr != nil {
			t.Fatal(ferr)
		}
		c := goldenCase{Round: v.round, Rounds: v.rounds, History: v.history}
		for _, a := range v.agents {
			c.Agents = append(c.Agents, goldenAgent{Answer: a.Answer, Confidence: nul(a.Confidence),
				Steps: a.Profile.Steps, Tokens: a.Profile.Tokens, Hedges: a.Profile.Hedges, SelfConf: nul(a.Profile.SelfConfidence)})
		}
		obs := metapolicy.Observation{Round: v.round, Rounds: v.rounds, Agents: v.agents, History: v.history}
		for self := range v.agents {
			obs.Self = self
			f := make([]float64, fz.Width)
			if err := fz.Featurize(f, &obs); err != nil {
				t.Fatal(err)
			}
			c.Features = append(c.Features, f)
		}
		g.Cases = append(g.Cases, c)
	}
	b, err := json.Marshal(&g)
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestFeatureGoldenCurrent fails when a golden file the Python featurizer
// is checked against is not what this build's featurizer of its layout
// gives: rerun with -update after changing a feature layout (and bump its
// version, and the Python featurizer with it).
func TestFeatureGoldenCurrent(t *testing.T) {
	for _, g := range []struct {
		path string
		want []byte
	}{
		{goldenPath, buildGolden(t)},
		{goldenPathV2, buildGoldenFor(t, metapolicy.FeatureVersionV2, goldenStatesV2())},
		{goldenPathPeers, buildGoldenFor(t, metapolicy.FeatureVersionPeers, goldenStatesPeers())},
	} {
		if *update {
			if err := os.MkdirAll(filepath.Dir(g.path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(g.path, g.want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(g.path)
		if err != nil {
			t.Fatalf("%v (create it with go test ./serve -run FeatureGolden -update)", err)
		}
		if !bytes.Equal(got, g.want) {
			t.Errorf("%s is stale: metapolicy's featurizer gives other features; rerun with -update and check python/mpdf/features.py", g.path)
		}
	}
}
