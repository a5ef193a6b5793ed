package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// On writeTranscript's questions agent 0 is right from round 0 and the
// split vote goes to it: three decisions of six hold a correct answer, no
// refine changes the team, and the hindsight optimum persists everywhere.
func TestDataSignalAndHindsight(t *testing.T) {
	tr := writeTranscript(t, t.TempDir())
	var rep struct {
		Counts   map[string]int   `json:"counts"`
		Features []map[string]any `json:"features"`
	}
	if err := json.Unmarshal([]byte(mustRun(t, "data", "signal", tr, "-q", "--json")), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Counts["decisions_all"] != 6 || rep.Counts["correct_all"] != 3 || rep.Counts["fix_all"] != 0 {
		t.Errorf("counts %v, want 6 decisions, 3 correct, 0 fixes", rep.Counts)
	}
	if len(rep.Features) == 0 || rep.Features[0]["feature"] != "v1.FHasAnswer" {
		t.Errorf("features %v, want the v1 layout first", rep.Features)
	}
	out := mustRun(t, "data", "hindsight", tr, "-q", "--lambdas", "0,0.1")
	for _, want := range []string{"hindsight", "0.1", "1.000", "1.00"} {
		if !strings.Contains(out, want) {
			t.Errorf("hindsight output lacks %q:\n%s", want, out)
		}
	}
	if _, err := runCmd(t, "data", "hindsight", tr, "-q", "--lambdas", "x"); err == nil || !strings.Contains(err.Error(), `"--lambdas"`) {
		t.Errorf("bad --lambdas: err %v", err)
	}
	if _, err := runCmd(t, "data", "hindsight", tr, "-q", "--by", "colour"); err == nil || !strings.Contains(err.Error(), "--by") {
		t.Errorf("bad --by: err %v", err)
	}
}
