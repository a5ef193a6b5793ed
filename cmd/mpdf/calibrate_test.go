package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/stats/correctness"
)

// TestSimulateCalibrate fits the simulator to real transcripts from the
// command line: the report compares real and simulated statistics, and
// --params-out writes parameters the simulator accepts.
func TestSimulateCalibrate(t *testing.T) {
	dir := testenv.Shared(t, "data", "debates", "slm-debate", "gsm")
	out := filepath.Join(t.TempDir(), "fit.json")
	stdout := mustRun(t, "simulate", "-q", "--calibrate", filepath.Join(dir, "gsm_*agents3*.json"), "--params-out", out)
	for _, want := range []string{"fitted parameters", "real (", "simulated (", "revision fixes a wrong answer", "AUC real", "wrote the parameters to"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	p, err := sim.ReadParams(out)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(p.Source, "--calibrate") {
		t.Errorf("source %q does not say how the fit was made", p.Source)
	}
	if _, err := sim.New(sim.Config{Params: &p}); err != nil {
		t.Errorf("fitted parameters refused: %v", err)
	}
	if _, err := runCmd(t, "simulate", "-q", "--params-out", out); err == nil || !strings.Contains(err.Error(), "--calibrate") {
		t.Errorf("--params-out alone: err %v", err)
	}
	if _, err := runCmd(t, "simulate", "-q", "--calibrate", filepath.Join(dir, "none_*.json")); err == nil {
		t.Error("--calibrate of no file: no error")
	}
}

func TestSimulateSignals(t *testing.T) {
	js := mustRun(t, "simulate", "--signals", "--tasks", "50", "--json")
	var got struct {
		Decisions int                         `json:"decisions"`
		Signals   []correctness.FeatureSignal `json:"signals"`
	}
	if err := json.Unmarshal([]byte(js), &got); err != nil {
		t.Fatal(err)
	}
	if got.Decisions != 50*3*3 || len(got.Signals) == 0 || got.Signals[0].Feature != "has_answer" {
		t.Errorf("signals %+v", got)
	}
	table := mustRun(t, "simulate", "--signals", "--tasks", "50")
	if !strings.Contains(table, "AUC simulated") || !strings.Contains(table, "own_share") {
		t.Errorf("table:\n%s", table)
	}
}
