package sim

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
)

// TestFitRecoversSimulator fits the simulator to its own debates, played
// with known parameters: the fit must find them again, within what 3,000
// tasks can tell.
func TestFitRecoversSimulator(t *testing.T) {
	truth := handSet()
	truth.FixSkill, truth.BreakGap = 0, 0 // what the fit assumes
	truth.FixAllGold, truth.BreakAllWrong = 0.5, -0.5
	truth.StepsSpread, truth.HedgesSpread = 0.3, 0.2
	s := newSim(t, Config{Tasks: 3000, Params: truth})
	debate := heuristic(t, "debate")
	var stats DebateStats
	if err := env.Play(s, debate, env.RunOptions{Rounds: 2, Seed: 4}, stats.Add); err != nil {
		t.Fatal(err)
	}
	fit, err := Fit(&stats)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want float64
		tol       float64
	}{
		{"skill", fit.Skill, truth.Skill, 0.03},
		{"difficulty_spread", fit.DifficultySpread, truth.DifficultySpread, 0.04},
		{"unreadable", fit.Unreadable, truth.Unreadable, 0.01},
		{"revision_unreadable", fit.RevisionUnreadable, truth.RevisionUnreadable, 0.01},
		{"unreadable_correlation", fit.UnreadableCorrelation, truth.UnreadableCorrelation, 0.08},
		{"attractor", fit.Attractor, truth.Attractor, 0.05},
		{"fix_base", fit.FixBase, truth.FixBase, 0.4},
		{"fix_gold", fit.FixGold + fit.FixAllGold, truth.FixGold + truth.FixAllGold, 0.5},
		{"break_base", fit.BreakBase, truth.BreakBase, 0.4},
		{"keep_wrong", fit.KeepWrong, truth.KeepWrong, 0.05},
		{"break_to", fit.BreakTo, truth.BreakTo, 0.1},
		{"steps_right", fit.StepsRight, truth.StepsRight, 0.2},
		{"hedges_wrong", fit.HedgesWrong, truth.HedgesWrong, 0.1},
		{"steps_spread", fit.StepsSpread, truth.StepsSpread, 0.08},
		{"tokens_right.log_sd", fit.TokensRight.LogSD, truth.TokensRight.LogSD, 0.03},
		{"revision_tokens_wrong.log_mean", fit.RevisionTokensWrong.LogMean, truth.RevisionTokensWrong.LogMean, 0.05},
		{"question.log_mean", fit.Question.LogMean, truth.Question.LogMean, 0.03},
		{"prompt_base", fit.PromptBase, truth.PromptBase, 3},
		{"prompt_question", fit.PromptQuestion, truth.PromptQuestion, 0.03},
		{"prompt_own", fit.PromptOwn, truth.PromptOwn, 0.03},
		{"prompt_peers", fit.PromptPeers, truth.PromptPeers, 0.03},
		{"stated_rate", fit.StatedRate, truth.StatedRate, 0},
	} {
		if math.Abs(c.got-c.want) > c.tol {
			t.Errorf("%s: fitted %.4f, true %.4f (tolerance %v)", c.name, c.got, c.want, c.tol)
		}
	}
	// Deterministic: the same statistics give the same bytes.
	again, _ := Fit(&stats)
	a, _ := fit.MarshalIndent()
	b, _ := again.MarshalIndent()
	if !bytes.Equal(a, b) {
		t.Error("two fits of the same statistics differ")
	}
	if _, err := Fit(&DebateStats{}); err == nil {
		t.Error("fit of no episodes: no error")
	}
}

func TestSimParamsFile(t *testing.T) {
	p := *handSet()
	path := t.TempDir() + "/p.json"
	if err := p.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	q, err := ReadParams(path)
	if err != nil || q != p {
		t.Fatalf("read back %+v, %v", q, err)
	}
	b, _ := p.MarshalIndent()
	for name, bad := range map[string]string{
		"missing field": strings.Replace(string(b), `"conform"`, `"conformity"`, 1),
		"unknown field": strings.Replace(string(b), `"conform"`, `"extra": 1, "conform"`, 1),
		"out of range":  strings.Replace(string(b), `"keep_wrong": 0.6`, `"keep_wrong": 1.6`, 1),
		"not JSON":      "{",
	} {
		if _, err := ParseParams([]byte(bad)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := ReadParams(t.TempDir() + "/none.json"); err == nil {
		t.Error("missing file: no error")
	}
}
