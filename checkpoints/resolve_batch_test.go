package checkpoints

import (
	"path/filepath"
	"testing"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// TestResolvedBatches: a resolved policy is a BatchPolicy of its own (a
// runner's batch reaches the learned policy's forward pass, not Probs row by
// row), and its rows are Probs' bit for bit, for a checkpoint and a heuristic.
func TestResolvedBatches(t *testing.T) {
	c := newTrainState(t, []int{metapolicy.FeatureWidth, 8, 3}, nn.Tanh, 3).checkpoint(t)
	st := filepath.Join(t.TempDir(), "p.safetensors")
	meta := map[string]string{MetaFeatureVersion: metapolicy.FeatureVersion, MetaConfidenceSource: ConfidenceNone}
	if err := SaveSafetensors(st, c.Policy, meta); err != nil {
		t.Fatal(err)
	}
	agents := []metapolicy.AgentState{{Answer: "1", Confidence: 0.2}, {Answer: "2", Confidence: metapolicy.Missing}, {Answer: "2", Confidence: 0.9}}
	hist := [][]string{{"1", "2", "2"}}
	var obs []metapolicy.Observation
	for s := range agents {
		obs = append(obs, metapolicy.Observation{Self: s, Round: 1, Rounds: 2, Agents: agents, History: hist})
	}
	for _, spec := range []string{st, "gate"} {
		r, err := ResolvePolicy(spec)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := metapolicy.Batch(r).(Resolved); !ok {
			t.Errorf("%s: Batch wraps the resolved policy in the row-by-row adapter", spec)
		}
		got := make([][metapolicy.NumActions]float64, len(obs))
		if err := metapolicy.Batch(r).ProbsBatch(got, obs); err != nil {
			t.Fatal(err)
		}
		for i := range obs {
			var want [metapolicy.NumActions]float64
			if err := r.Probs(&want, &obs[i]); err != nil {
				t.Fatal(err)
			}
			if got[i] != want {
				t.Errorf("%s: row %d: %v, Probs %v", spec, i, got[i], want)
			}
		}
	}
}
