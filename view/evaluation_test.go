package view

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
)

// PlayEvaluation plays every policy of the evaluation and titles the page
// with what was played.
func TestPlayEvaluation(t *testing.T) {
	ev, err := replay.OpenEvaluation(replay.EvalConfig{Env: "sim", EnvGiven: true, EnvConfig: replay.EnvConfig{Sim: sim.Config{Tasks: 5, Seed: 2}}, Tasks: 3, Seed: 4, Workers: 1})
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
