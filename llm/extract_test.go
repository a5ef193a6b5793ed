package llm

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDefaultExtract(t *testing.T) {
	for _, tc := range []struct {
		kind, text, want string
	}{
		{KindGSM, `So the total is \boxed{52}.`, "52"},
		{KindGSM, `First \boxed{50}, no wait: \boxed{52}`, "52"},
		{KindGSM, `\boxed{1,250.50}`, "1250.5"},
		{KindGSM, `\boxed{\$18}`, "18"},
		{KindGSM, `\boxed{52 \text{ WPM}}`, "52"},
		{KindGSM, `\boxed{x = -3}`, "-3"},
		{KindGSM, `\boxed{\frac{1}{2}}`, `\frac{1}{2}`},
		{KindGSM, `\boxed{\text{none}}`, `\text{none}`},
		{KindGSM, `\boxed{12} and then it stopped: \boxed{1`, "12"},
		{KindGSM, "He pays 3 times.\n#### 72\nNote 5", "72"},
		{KindGSM, "We get 7 apples, then 10.00 pears", "10"},
		{KindGSM, "<think>maybe \\boxed{3}</think>The answer is \\boxed{4}", "4"},
		{KindGSM, "<think>it is \\boxed{3} surely but then", ""},
		{KindGSM, "no number here", ""},
		{KindGSM, `\boxed{-0.0}`, "0"},
		{KindMMLU, "A) is wrong, (B) too, so the answer is (D).", "D"},
		{KindMMLU, "I pick (C)\n\n**(A)**", "A"},
		{KindMMLU, "The correct answer is B", "B"},
		{KindMMLU, "The answer is a mix of both", ""},
		{KindMMLU, "Answer: C", "C"},
		{KindMMLU, "The answer, (X), is unknowable", ""},
		{KindMMLU, "All agree on **C**.\n\n(X) C", "C"},
		{KindMMLU, `So \(\boxed{A}\).`, "A"},
		{KindMMLU, "Thus the answer is **D**.", "D"},
		{"other", `\boxed{5}`, ""},
	} {
		if got := DefaultExtract(tc.kind, tc.text); got != tc.want {
			t.Errorf("DefaultExtract(%s, %q) = %q, want %q", tc.kind, tc.text, got, tc.want)
		}
	}
}

func TestNormalizeGold(t *testing.T) {
	for _, tc := range []struct {
		kind, gold, want string
	}{
		{KindGSM, "52", "52"},
		{KindGSM, "Jared ... = <<156/3=52>>52 WPM.\n#### 52", "52"},
		{KindGSM, "#### 1,000", "1000"},
		{KindGSM, " $18.50 ", "18.5"},
		{KindGSM, "3/4", "3/4"},
		{KindGSM, "", ""},
		{KindMMLU, "d", "D"},
		{KindMMLU, "(B)", "B"},
		{KindMMLU, "B.", "B"},
		{KindMMLU, "Paris", "Paris"},
	} {
		if got := NormalizeGold(tc.kind, tc.gold); got != tc.want {
			t.Errorf("NormalizeGold(%s, %q) = %q, want %q", tc.kind, tc.gold, got, tc.want)
		}
	}
}

func TestProfileOf(t *testing.T) {
	for _, tc := range []struct {
		text          string
		steps, hedges int
	}{
		{"Step 1: add.\nStep 2: divide.\nStep 3: done. Maybe.", 3, 1},
		{"1. a\n2) b\n- c\n\nSo 4.", 3, 0},
		{"One line.\n\nAnother line.\nI think it's 5, but I'm not sure; perhaps 6.", 3, 3},
		{"<think>maybe\nmaybe\nmaybe</think>It is 5.", 1, 0},
		{"", 0, 0},
		{"It seems likely, though it might be, that this appears to hold.", 1, 4},
		{"The mighty river, unlikely.", 1, 0},
	} {
		p := ProfileOf(tc.text, 17)
		if p.Steps != tc.steps || p.Hedges != tc.hedges || p.Tokens != 17 || p.SelfConfidence != nil {
			t.Errorf("ProfileOf(%q) = %+v, want %d steps, %d hedges", tc.text, p, tc.steps, tc.hedges)
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
	if got := SolvePrompt(KindGSM, "Q?"); got != `Can you solve the following math problem? Q? Explain your reasoning. Your final answer should be a single numerical number, in the form \boxed{answer}, at the end of your response.` {
		t.Errorf("gsm solve: %q", got)
	}
	want := "These are the solutions to the problem from other agents: \n\n One agent solution: ```A```\n\n One agent solution: ```(no answer)```\n\n Using the reasoning from other agents as additional advice, can you give an updated answer? Examine your solution and that other agents step by step. Put your answer in the form (X) at the end of your response."
	if got := RefinePrompt(KindMMLU, "Q?", []string{"A", " "}); got != want {
		t.Errorf("mmlu refine:\n%q\nwant\n%q", got, want)
	}
	// One substitution pass: placeholders inside the question stay.
	if got := CriticPrompt("What is %S?", "sol %Q"); !strings.Contains(got, "Problem: What is %S?") || !strings.Contains(got, "```sol %Q```") {
		t.Errorf("critic: %q", got)
	}
}

// TestExtractOnRealDebates reads the public debate transcripts (when
// present): every gold answer must normalise to a number (gsm) or a letter
// (mmlu), and the default reader must find an answer in most model
// replies and agree with the gold often enough to be a sane fallback.
func TestExtractOnRealDebates(t *testing.T) {
	root := filepath.Join("..", "..", "shared", "data", "debates", "slm-debate")
	if _, err := os.Stat(root); err != nil {
		t.Skipf("no debate transcripts at %s", root)
	}
	if raceEnabled || testing.Short() {
		// 27 MB read on one goroutine: nothing for the race detector to
		// find, and tens of times slower under it.
		t.Skip("reads every transcript; run without -race and -short")
	}
	for _, kind := range []string{KindGSM, KindMMLU} {
		files, _ := filepath.Glob(filepath.Join(root, kind, "*.json"))
		if len(files) == 0 {
			t.Errorf("%s: no files", kind)
			continue
		}

		var replies, read, right int
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var debates map[string][2]json.RawMessage
			if err := json.Unmarshal(b, &debates); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			for q, d := range debates {
				var ctxs [][]Message
				var rawGold string
				if json.Unmarshal(d[0], &ctxs) != nil || json.Unmarshal(d[1], &rawGold) != nil {
					t.Fatalf("%s: %.40q: not the LLM-Debate layout", f, q)
				}
				gold := NormalizeGold(kind, rawGold)
				if (kind == KindGSM && numberRe.FindString(gold) != gold) || (kind == KindMMLU && len(gold) != 1) || gold == "" {
					t.Errorf("%s: gold %.60q normalises to %q", filepath.Base(f), rawGold, gold)
				}
				for _, c := range ctxs {
					for _, m := range c {
						if m.Role != "assistant" {
							continue
						}
						replies++
						if a := DefaultExtract(kind, m.Content); a != "" {
							read++
							if a == gold {
								right++
							}
						}
					}
				}
			}
		}
		fr, fa := float64(read)/float64(replies), float64(right)/float64(replies)
		t.Logf("%s: %d files, %d replies, answer read in %.1f%%, equal to gold in %.1f%%", kind, len(files), replies, 100*fr, 100*fa)
		// Measured: gsm 99.3% read, 85.6% right; mmlu 88.6%, 58.7% (the
		// rest name no letter at all). The bounds leave a little room.
		minRead, minRight := 0.97, 0.8
		if kind == KindMMLU {
			minRead, minRight = 0.85, 0.5
		}
		if fr < minRead || fa < minRight {
			t.Errorf("%s: answer read in %.1f%%, right in %.1f%% of replies; want ≥ %.0f%% and ≥ %.0f%%", kind, 100*fr, 100*fa, 100*minRead, 100*minRight)
		}
	}
}
