package answer

import (
	"strings"
	"testing"

	"github.com/mpdf/mpdf/answer/internal/reference"
)

// fuzzQuestion is an MMLU question in LLM-Debate's template, so that the
// option-text rule of ExtractLetterIn is fuzzed too.
const fuzzQuestion = "Which one? : A) 16 hours, B) 45,X, C) Insulin, D) the sun Answer in English only."

// FuzzRead reads any text by every kind and checks that reading does not
// panic, that its counted work stays within workPerByte·len + workConst,
// and — for texts the caps do not touch — that it reads as the reader it
// replaced did (package reference).
func FuzzRead(f *testing.F) {
	for _, a := range adversarial {
		f.Add(a.text(48))
	}
	for _, s := range []string{
		"3 * 12 = 36, so \\boxed{36}", "The answer is (B).", "#### 1 000", "\\boxed{\\frac{1}{2}}",
		"<think>2+2=5</think> The answer is $\\frac{-1}{2}$.", "(X) 16 hours will be needed",
		"so it is (45,X).", "Confidence: 80%\nB) Insulin", "-2^2 = -4, 2^10 = 1024", "7/2 = 3 boxes",
		"\\boxed{1}\\boxed{\\text{(C)}}", "the value of $n$ is $11$.", "is 12 units.", "1/3 + 1,000.50",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, k := range Kinds {
			opts := Options{Question: fuzzQuestion, Critic: true}
			var n int
			workMeter = &n
			got := Read(k, text, opts)
			workMeter = nil
			if n > workPerByte*len(text)+workConst {
				t.Fatalf("%s: work %d for %d bytes > %d·len + %d", k, n, len(text), workPerByte, workConst)
			}
			if !withinCaps(text) {
				continue
			}
			want := reference.Read(reference.Kind(k), text, reference.Options{Question: fuzzQuestion, Critic: true})
			if !sameResult(got, want) {
				t.Fatalf("%s: got %s, want %s (the reader before the caps)", k, showResult(got), showResult(want))
			}
		}
	})
}

// withinCaps reports a text no cap can change the reading of: shorter than
// a box may be read (and so than every window), with at most MaxBoxes
// boxes, and with too few digits for a fraction to span MaxQuotientBytes
// or for the critic to meet a number or value past its bounds.
func withinCaps(text string) bool {
	if len(text) > MaxBoxBytes || strings.Count(text, `\boxed`)+strings.Count(text, `\fbox`) > MaxBoxes {
		return false
	}
	digits := 0
	for i := 0; i < len(text); i++ {
		if isDigit(text[i]) {
			digits++
		}
	}
	return digits <= 20
}
