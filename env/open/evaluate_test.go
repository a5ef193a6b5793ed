package open

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env/sim"
)

// An evaluation scores every policy it opened, and writes the heading,
// a row per policy and the verdicts.
func TestEvaluationEvaluate(t *testing.T) {
	ev, err := Eval(EvalConfig{Env: "sim", EnvGiven: true, Config: Config{Sim: sim.Config{Tasks: 6, Seed: 2}}, Tasks: 4, Seed: 1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	calls := 0
	results, err := ev.Evaluate(func(done, total int) { calls++ })
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(ev.Policies) || calls == 0 {
		t.Fatalf("%d results of %d policies, %d progress calls", len(results), len(ev.Policies), calls)
	}
	var b strings.Builder
	if err := ev.WriteText(&b, results); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); !strings.HasPrefix(out, ev.Heading()+"\n") || !strings.Contains(out, results[0].Policy) {
		t.Errorf("WriteText:\n%s", out)
	}
}
