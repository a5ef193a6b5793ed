package signals

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
)

func TestAUCHandComputed(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		ys   []bool
		want float64
	}{
		{[]float64{1, 2, 3, 4}, []bool{false, false, true, true}, 1},
		{[]float64{1, 2, 3, 4}, []bool{true, true, false, false}, 0},
		// positives 2 and 3 against negatives 1 and 3: pairs (2>1), (2<3),
		// (3>1), (3=3 → ½): 2.5 of 4.
		{[]float64{1, 2, 3, 3}, []bool{false, true, true, false}, 0.625},
		{[]float64{5, 5, 5}, []bool{true, false, false}, 0.5},
	} {
		if got := AUC(c.xs, c.ys); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("AUC(%v, %v) = %v, want %v", c.xs, c.ys, got, c.want)
		}
	}
	if v := AUC([]float64{1, 2}, []bool{true, true}); !math.IsNaN(v) {
		t.Errorf("AUC with no negative = %v, want NaN", v)
	}
}

func ans(a string, tok int) transcript.Answer {
	return transcript.Answer{Answer: a, Profile: data.Profile{Tokens: tok}}
}

// One question, gold 7, round 0: 3, 3, 7. Agent 0's recorded revision is
// 7, the others keep their answers. Under the persist behaviour, agent 0
// refining in round 1 fixes the team (7, 3, 7); agents 1 and 2 refining
// changes nothing. Round 2 is the same. So 2 of 6 decisions are fixes,
// none breaks, and agent 2 (the only one holding 7) is the only correct one.
func TestMeasureHandBuilt(t *testing.T) {
	q := transcript.Question{
		ID: "q", File: "hand.json", Task: answer.GSM8K, Text: "q", Gold: "7",
		Agents: [][]transcript.Answer{
			{ans("3", 10), ans("7", 100), ans("7", 100)},
			{ans("3", 10), ans("3", 150), ans("3", 150)},
			{ans("7", 10), ans("7", 90), ans("7", 90)},
		},
	}
	e, err := replay.New([]transcript.Question{q})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := metapolicy.NewHeuristic(metapolicy.HeuristicPersist)
	rep, err := Measure(e, pol, Options{Rounds: 2}, Candidates())
	if err != nil {
		t.Fatal(err)
	}
	if rep.Decisions[SubsetAll] != 6 || rep.Decisions[SubsetContested] != 6 {
		t.Errorf("decisions %v, want 6 and 6", rep.Decisions)
	}
	if got := rep.Positives[TargetFix][SubsetAll]; got != 2 {
		t.Errorf("fixes %d, want 2", got)
	}
	if got := rep.Positives[TargetBreak][SubsetAll]; got != 0 {
		t.Errorf("breaks %d, want 0", got)
	}
	if got := rep.Positives[TargetCorrect][SubsetAll]; got != 2 {
		t.Errorf("correct %d, want 2 (agent 2 in both rounds)", got)
	}
	for _, r := range rep.Rows {
		if r.Feature == "v1.FOwnIsTeam" {
			// agent 2 (correct) is not on the team answer 3: AUC 0 for correct.
			if v := r.AUC[TargetCorrect][SubsetAll]; v != 0 {
				t.Errorf("FOwnIsTeam AUC for correct = %v, want 0", v)
			}
		}
	}
}

func TestCandidatesNameV1(t *testing.T) {
	cs := Candidates()
	if cs[metapolicy.FOwnShare].Name != "v1.FOwnShare" || cs[metapolicy.FTeamSize].Name != "v1.FTeamSize" {
		t.Errorf("v1 names out of layout order: %s, %s", cs[metapolicy.FOwnShare].Name, cs[metapolicy.FTeamSize].Name)
	}
}

func TestMeasureRealTranscripts(t *testing.T) {
	paths := testenv.Debates(t, "slm-debate/gsm/*_agents3_*.json")
	e, _, err := replay.Load(paths[:2], transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	rep, err := Measure(e, pol, Options{Rounds: e.Rounds()}, Candidates())
	if err != nil {
		t.Fatal(err)
	}
	if want := e.NumTasks() * 3 * e.Rounds(); rep.Decisions[SubsetAll] != want {
		t.Errorf("%d decisions, want %d", rep.Decisions[SubsetAll], want)
	}
	// Agreement carries signal for correctness on real debates.
	for _, r := range rep.Rows {
		if r.Feature == "v1.FOwnShare" && !(r.AUC[TargetCorrect][SubsetAll] > 0.6) {
			t.Errorf("FOwnShare AUC for correctness %v, want > 0.6", r.AUC[TargetCorrect][SubsetAll])
		}
	}
}

// The simulator draws its answers from the episode's stream, so replaying
// a plan from another stream gives other answers: Measure refuses it
// rather than report counterfactuals that are not.
func TestMeasureRefusesNondeterministicEnv(t *testing.T) {
	sim, err := sim.New(sim.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	pol, _ := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	_, err = Measure(sim, pol, Options{Tasks: []int{0, 1, 2, 3, 4, 5, 6, 7}, Rounds: 3}, Candidates())
	if err == nil || !strings.Contains(err.Error(), "not deterministic") {
		t.Errorf("err %v, want a refusal naming non-determinism", err)
	}
}

// TestAUCNaN: a NaN score has no rank; AUC must return NaN, not spin on the
// empty tie block NaN == NaN leaves (it did).
func TestAUCNaN(t *testing.T) {
	done := make(chan float64, 1)
	go func() { done <- AUC([]float64{1, math.NaN(), 3}, []bool{true, false, true}) }()
	select {
	case got := <-done:
		if !math.IsNaN(got) {
			t.Errorf("AUC with a NaN score = %v, want NaN", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("AUC with a NaN score did not terminate")
	}
}
