package answer

import (
	"slices"
	"testing"
)

func TestExtractLetter(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"paren", "The answer is clear. (B)", "B"},
		{"last paren wins", "(A) is wrong because of X; (D) too. So (C)", "C"},
		{"bold paren", "**(B)**", "B"},
		{"answer colon bold", "Answer: **D**", "D"},
		{"answer is", "the correct answer is C", "C"},
		{"answer is newline paren", "So, the answer is (D) ... However, the correct answer is:\n\n(C) the disc", "C"},
		{"answer is option", "the answer is option A.", "A"},
		{"answer phrase after paren", "Options C (Proprietary) and D (Fiduciary) are irrelevant.\n\nAnswer: B) Government-wide", "B"},
		{"boxed", `\boxed{D}`, "D"},
		{"boxed text paren", `\boxed{\text{(B)}}`, "B"},
		{"boxed beats later paren", "\\boxed{B}\n\n(A) was tempting", "B"},
		{"boxed with option text", `\boxed{B) Visual imagery}`, "B"},
		{"placeholder then letter", "(X) B", "B"},
		{"placeholder then option", "(X) Option A, as it is plausible", "A"},
		{"placeholder then label", "(X) C) the articular disc", "C"},
		{"last line label", "Thinking.\nB) Insulin", "B"},
		{"last line bold label", "Thinking.\n**C.** Glycogen", "C"},
		{"last line bare letter", "Thinking.\nD", "D"},
		{"article is not a letter", "the answer is a mystery", ""},
		{"lower-case enumeration", "first (b), then (c)", ""},
		{"placeholder only", "my answer is (X)", ""},
		{"option text without choices", "(Insulin)", ""},
		{"letter E", "(E)", ""},
		{"unclosed think", "<think>(A) maybe", ""},
		{"closed think", "<think>(A) maybe</think>\nThe answer is (C)", "C"},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ExtractLetter(c.text); got != c.want {
				t.Errorf("ExtractLetter(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

func TestChoices(t *testing.T) {
	q := "Can you answer the following question as accurately as possible? (1+i)^10 =: A) 1, B) i, C) 32, D) 32i Answer in English only. Explain your answer, putting the answer in the form (X) at the end of your response."
	if got, want := Choices(q), []string{"1", "i", "32", "32i"}; !slices.Equal(got, want) {
		t.Errorf("Choices = %q, want %q", got, want)
	}
	q = "Can you answer the following question as accurately as possible? Which?: A) Governmental fund., B) Government-wide., C) Proprietary fund., D) Fiduciary fund. Explain your answer, putting the answer in the form (X) at the end of your response."
	if got, want := Choices(q), []string{"Governmental fund.", "Government-wide.", "Proprietary fund.", "Fiduciary fund."}; !slices.Equal(got, want) {
		t.Errorf("Choices = %q, want %q", got, want)
	}
	if got := Choices("Pick one: (A) red (B) green (C) blue (D) black"); got != nil {
		t.Errorf("Choices of a question outside the template = %q, want nil", got)
	}
}

func TestExtractLetterIn(t *testing.T) {
	hormones := []string{"Adrenaline", "Insulin", "Glycogen", "Cortisol"}
	hours := []string{"16 hours", "18 hours", "24 hours", "32 hours"}
	powers := []string{"1", "i", "32", "32i"}
	cases := []struct {
		name    string
		choices []string
		text    string
		want    string
	}{
		{"letter first", hormones, "(X) Insulin, but (C) was close", "C"},
		{"placeholder option", hormones, "It drives uptake.\n\n(X) Insulin.", "B"},
		{"placeholder option goes on", hours, "So, (X) 16 hours will be required.", "A"},
		{"placeholder case", hormones, "(x) insulin", "B"},
		{"ending paren", hormones, "the hormone is (Insulin).", "B"},
		{"paren not at end", hormones, "(Insulin) is discussed, then nothing", ""},
		{"ending paren must be whole", powers, "(32 or so)", ""},
		{"longest option", powers, "(32i)", "D"},
		{"exact option", powers, "(32)", "C"},
		{"prefix needs a break", powers, "(X) 1+i", ""},
		{"tie names none", []string{"x", "x", "y", "z"}, "(X) x", ""},
		{"no choices", nil, "(X) Insulin", ""},
		{"nothing", hormones, "I do not know.", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ExtractLetterIn(c.text, c.choices); got != c.want {
				t.Errorf("ExtractLetterIn(%q, %q) = %q, want %q", c.text, c.choices, got, c.want)
			}
		})
	}
}

// FuzzExtractLetter checks that extraction never panics and returns a
// letter A–D or nothing.
func FuzzExtractLetter(f *testing.F) {
	for _, s := range []string{"(B)", `\boxed{\text{C}}`, "(X) Insulin", "Answer: **D**", "A)"} {
		f.Add(s)
	}
	choices := []string{"Adrenaline", "Insulin", "Glycogen", "Cortisol"}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		for _, got := range []string{ExtractLetter(s), ExtractLetterIn(s, choices)} {
			if got != "" && !(len(got) == 1 && got[0] >= 'A' && got[0] <= 'D') {
				t.Errorf("ExtractLetter(%q) = %q, want A–D or \"\"", s, got)
			}
		}
	})
}
