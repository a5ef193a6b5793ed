package ablate

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/internal/studytest"
	"github.com/mpdf/mpdf/trainer"
)

// With a stub trainer whose full recipe plays debate, each team's learned
// row equals that team's debate (same episode seeds): Δ exactly 0, one
// row per size, and every team's rows in results.json under their own
// names and task numbers.
func TestAblateTeamsStub(t *testing.T) {
	s, err := sim.New(sim.Config{Tasks: 20, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	stub := func(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
		if cfg.RL.Iterations == 0 {
			return metapolicy.ParseHeuristic("persist")
		}
		return metapolicy.ParseHeuristic("debate")
	}
	cfg := study.Config{Folds: 2, Seeds: 2, Baselines: []string{"majority", "debate"}, Trainer: stub, Workers: 2}
	a, err := Ablate(s, cfg, AblateTeamSize)
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Rows) != len(TeamSizes) {
		t.Fatalf("%d rows, want one per team size %v", len(a.Rows), TeamSizes)
	}
	for i, n := range TeamSizes {
		r := a.Rows[i]
		wantRef := fmt.Sprintf("debate (%d agents)", n)
		if r.Setting != fmt.Sprintf("%d agents", n) || r.Ref != wantRef || r.Delta == nil || r.Delta.Estimate != 0 || r.PersistSFT != 1 {
			t.Errorf("row %d: %+v, want %d agents, Δ 0 vs %s, persist after SFT 1", i, r, n, wantRef)
		}
		var debate *study.PolicyStats
		for j := range a.Baselines {
			if a.Baselines[j].Policy == wantRef {
				debate = &a.Baselines[j]
			}
		}
		if debate == nil || debate.Accuracy != r.Accuracy {
			t.Errorf("%d agents: learned %+v, debate %+v", n, r.Accuracy, debate)
		}
	}
	if a.Rows[0].TokensPerTask >= a.Rows[2].TokensPerTask {
		t.Errorf("debate's tokens per task do not grow with the team: %v (3) vs %v (7)", a.Rows[0].TokensPerTask, a.Rows[2].TokensPerTask)
	}
	seen := map[[3]any]bool{}
	for _, r := range a.Study.Rows {
		k := [3]any{r.Policy, r.Seed, r.Index}
		if seen[k] {
			t.Fatalf("results row %v twice", k)
		}
		seen[k] = true
	}
	if want := 2 * 20 * len(TeamSizes) * (2 + 3); len(a.Study.Rows) != want { // seeds × tasks × teams × (2 baselines, the oracle, SFT, mpdf)
		t.Errorf("%d result rows, want %d", len(a.Study.Rows), want)
	}
	var md bytes.Buffer
	if err := a.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	// The header says what each team played, and counts a question the
	// three teams share once.
	for _, s := range []string{"# mpdf ablation: team-size", "| 5 agents |", "vs debate (7 agents): +0.0", "| majority (3 agents) |",
		"3 agents (20 tasks, 20 distinct questions, 3 rounds), 5 agents (20 tasks, 20 distinct questions, 3 rounds)", "; 60 tasks, 20 distinct questions;"} {
		if !strings.Contains(md.String(), s) {
			t.Errorf("report lacks %q:\n%s", s, md.String())
		}
	}
}

// A replay of 3- and 5-agent transcripts splits into its two teams; one
// size alone is refused.
func TestTeamsOfReplay(t *testing.T) {
	e := studytest.Shared(t, "slm-debate/gsm/gsm_Qwen3-0.6B_*agents[35]_*.json*")
	teams, err := TeamsOf(e)
	if err != nil {
		t.Fatal(err)
	}
	if len(teams) != 2 || teams[0].Agents != 3 || teams[1].Agents != 5 || teams[0].Env.NumTasks()+teams[1].Env.NumTasks() != e.NumTasks() {
		t.Fatalf("teams %+v of %d tasks", teams, e.NumTasks())
	}
	if _, err := TeamsOf(studytest.Shared(t, "slm-debate/gsm/gsm_Qwen3-0.6B_*agents3_*.json*")); err == nil || !strings.Contains(err.Error(), "several team sizes") {
		t.Errorf("one team size: %v", err)
	}
	if _, err := TeamsOf(must(sim.New(sim.Config{Tasks: 5, Skills: []float64{0, 1, 2}}))); err == nil || !strings.Contains(err.Error(), "per-agent skills") {
		t.Errorf("simulator with per-agent skills: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
