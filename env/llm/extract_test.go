package llm

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer"
)

func TestNormalizeGold(t *testing.T) {
	for _, tc := range []struct {
		kind       answer.Kind
		gold, want string
	}{
		{answer.GSM8K, "Natalia sold 48/2 = <<48/2=24>>24 clips.\n#### 72", "72"},
		{answer.GSM8K, "1,250.50", "1250.5"},
		{answer.MMLU, "(c)", "C"},
		{answer.MMLU, "B", "B"},
		{answer.GSM8K, "no number here", "no number here"},
	} {
		if got := NormalizeGold(tc.kind, tc.gold); got != tc.want {
			t.Errorf("NormalizeGold(%s, %q) = %q, want %q", tc.kind, tc.gold, got, tc.want)
		}
	}
}

func TestParseConfidence(t *testing.T) {
	for _, tc := range []struct {
		reply string
		want  float64
		ok    bool
	}{
		{"Confidence: 85", 0.85, true},
		{"**Confidence:** 72%", 0.72, true},
		{"My confidence is 60/100.", 0.6, true},
		{"90", 0.9, true},
		{" 100% ", 1, true},
		{"Confidence: 0", 0, true},
		{"The answer 52 looks right; I'd say 80%.", 0.8, true},
		{"<think>Confidence: 10</think>\nConfidence: 95", 0.95, true},
		{"confidence: 95.5", 0.955, true},
		{"Confidence: 150", 0, false},
		{"The answer 52 is correct.", 0, false},
		{"I cannot tell.", 0, false},
		{"", 0, false},
		{"<think>Confidence: 40 but the reply was cut", 0, false},
	} {
		got, ok := ParseConfidence(tc.reply)
		if ok != tc.ok || (ok && abs(got-tc.want) > 1e-12) {
			t.Errorf("ParseConfidence(%q) = %v, %v; want %v, %v", tc.reply, got, ok, tc.want, tc.ok)
		}
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func TestPrompts(t *testing.T) {
	// The LLM-Debate texts, as the public transcripts show them.
	if got := SolvePrompt(answer.GSM8K, "Q?"); got != `Can you solve the following math problem? Q? Explain your reasoning. Your final answer should be a single numerical number, in the form \boxed{answer}, at the end of your response.` {
		t.Errorf("gsm solve: %q", got)
	}
	want := "These are the solutions to the problem from other agents: \n\n One agent solution: ```A```\n\n One agent solution: ```(no answer)```\n\n Using the reasoning from other agents as additional advice, can you give an updated answer? Examine your solution and that other agents step by step. Put your answer in the form (X) at the end of your response."
	if got := RefinePrompt(answer.MMLU, "Q?", []string{"A", " "}); got != want {
		t.Errorf("mmlu refine:\n%q\nwant\n%q", got, want)
	}
	// One substitution pass: placeholders inside the question stay.
	if got := JudgePrompt("What is %S?", "sol %Q"); !strings.Contains(got, "Problem: What is %S?") || !strings.Contains(got, "```sol %Q```") {
		t.Errorf("judge: %q", got)
	}
}
