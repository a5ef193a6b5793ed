package view

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/nn"
)

// PlayEvaluation plays every policy of the evaluation and titles the page
// with what was played.
func TestPlayEvaluation(t *testing.T) {
	ev, err := open.Eval(open.EvalConfig{Env: "sim", EnvGiven: true, Config: open.Config{Sim: sim.Config{Tasks: 5, Seed: 2}}, Tasks: 3, Seed: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	runs, o, err := PlayEvaluation(ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) == 0 || !strings.HasSuffix(o.Title, ": 3 tasks × 1 episodes, 3 rounds, seed 4") {
		t.Errorf("%d runs, title %q", len(runs), o.Title)
	}
}

// A page that plays a learned policy with the baselines shows the verdict
// eval prints: how the policy played, and what to use.
func TestPlayEvaluationVerdict(t *testing.T) {
	m, err := nn.NewMLP[float32]([]int{metapolicy.FeatureWidth, 8, metapolicy.NumActions}, nn.Tanh)
	if err != nil {
		t.Fatal(err)
	}
	m.Init(1)
	path := filepath.Join(t.TempDir(), "pol.mpdf")
	if err := checkpoints.Save(path, &checkpoints.Checkpoint{Header: checkpoints.Header{FeatureVersion: metapolicy.FeatureVersion}, Policy: m}); err != nil {
		t.Fatal(err)
	}
	ev, err := open.Eval(open.EvalConfig{Env: "sim", EnvGiven: true, Config: open.Config{Sim: sim.Config{Tasks: 20, Seed: 2}},
		Policies: []string{path}, Seed: 4, Workers: 1, Greedy: true})
	if err != nil {
		t.Fatal(err)
	}
	runs, o, err := PlayEvaluation(ev, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Verdict) != 1 || !strings.HasPrefix(o.Verdict[0], "pol.mpdf, played greedy — verdict (λ 0, accuracy alone): use ") {
		t.Fatalf("verdict %q", o.Verdict)
	}
	var b strings.Builder
	if err := Write(&b, runs, o); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `<p class="verdict">pol.mpdf, played greedy — verdict (λ 0, accuracy alone): use `) {
		t.Error("the page does not show the verdict")
	}
}
