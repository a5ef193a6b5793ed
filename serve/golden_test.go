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

var update = flag.Bool("update", false, "rewrite the feature golden file python/tests/testdata/features_v1.json")

// goldenPath holds Go's features of a corpus of states, for the pure-Python
// featurizer's test (python/tests/test_features.py).
const goldenPath = "../python/tests/testdata/features_v1.json"

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
	// Features[i] is Featurize's vector for agent i as self.
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

func buildGolden(t *testing.T) []byte {
	g := golden{FeatureVersion: metapolicy.FeatureVersion, Width: metapolicy.FeatureWidth}
	nul := func(v float64) *float64 {
		if metapolicy.Known(v) {
			return &v
		}
		return nil
	}
	for _, d := range goldenStates() {
		v, ferr := d.check("")
		if ferr != nil {
			t.Fatal(ferr)
		}
		c := goldenCase{Round: v.round, Rounds: v.rounds}
		for _, a := range v.agents {
			c.Agents = append(c.Agents, goldenAgent{Answer: a.Answer, Confidence: nul(a.Confidence),
				Steps: a.Profile.Steps, Tokens: a.Profile.Tokens, Hedges: a.Profile.Hedges, SelfConf: nul(a.Profile.SelfConfidence)})
		}
		obs := metapolicy.Observation{Round: v.round, Rounds: v.rounds, Agents: v.agents}
		for self := range v.agents {
			obs.Self = self
			f := make([]float64, metapolicy.FeatureWidth)
			if err := metapolicy.Featurize(f, &obs); err != nil {
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

// TestFeatureGoldenCurrent fails when the golden file the Python featurizer
// is checked against is not what this build's metapolicy.Featurize gives:
// rerun with -update after changing the feature layout (and bump
// FeatureVersion, and the Python featurizer with it).
func TestFeatureGoldenCurrent(t *testing.T) {
	want := buildGolden(t)
	if *update {
		if err := os.MkdirAll(filepath.Dir(goldenPath), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(goldenPath, want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(goldenPath)
	if err != nil {
		t.Fatalf("%v (create it with go test ./serve -run FeatureGolden -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is stale: metapolicy.Featurize gives other features; rerun with -update and check python/mpdf/features.py", goldenPath)
	}
}
