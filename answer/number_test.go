package answer

import (
	"testing"
)

func TestExtractNumber(t *testing.T) {
	cases := []struct{ name, text, want string }{
		{"boxed", `so the total is \boxed{42}.`, "42"},
		{"boxed last wins", `\boxed{4} blue and \boxed{6} red`, "6"},
		{"boxed nested braces", `\boxed{\frac{5}{2}}`, "2.5"},
		{"boxed inside boxed", `\boxed{30 * 3 = \boxed{90}}`, "90"},
		{"boxed text unit", `\boxed{\text{18 dollars}}`, "18"},
		{"boxed unclosed", `$\underline{\boxed{45000`, "45000"},
		{"boxed expression last number", `\boxed{$5,000 + $10,000 = $15,000}`, "15000"},
		{"boxed dfrac", `\boxed{\dfrac{1}{4}}`, "0.25"},
		{"boxed space before brace", `\boxed {7}`, "7"},
		{"boxed beats later number", "\\boxed{12}\nchecked with 3 other values", "12"},
		{"boxed without number is unreadable", `\boxed{Cannot be determined} but maybe 5`, ""},
		{"earlier box with number", `\boxed{12} is it, not \boxed{answer}`, "12"},
		{"hash", "3 + 4 = 7\n#### 1,000\nthat was 5", "1000"},
		{"hash negative", "#### -12", "-12"},
		{"last number", "It is 16 hours. Or 17 hours.", "17"},
		{"last number trailing period", "The average is 51.33.", "51.33"},
		{"commas", "that makes 1,000", "1000"},
		{"dollar", "she pays $1000", "1000"},
		{"decimal zero", "1000.0", "1000"},
		{"decimal zeros", "$3.80 left", "3.8"},
		{"units", "1000 dollars", "1000"},
		{"negative", "the change is -5 degrees", "-5"},
		{"unicode minus", "it reads −7", "-7"},
		{"subtraction is not a sign", "10 - 5", "5"},
		{"glued subtraction", "10-5", "5"},
		{"range", "11-19 inches", "19"},
		{"boxed negative", `\boxed{-3}`, "-3"},
		{"bare decimal", "about .5 of it", "0.5"},
		{"fraction", "she ate 3/4", "0.75"},
		{"repeating fraction", "1/3", "0.333333"},
		{"letter glued", "Qwen3 says 7", "7"},
		{"letter glued only", "H2O", ""},
		{"latex times", `$2\times5=10$`, "10"},
		{"latex comma", `45{,}000`, "45000"},
		{"escaped dollar", `\$45,000`, "45000"},
		{"percent", "a 50% rise", "50"},
		{"negative zero", "-0.0", "0"},
		{"closed think ignored", "<think>the answer is 5</think> so 6", "6"},
		{"unclosed think unreadable", "Let me see. <think>maybe 5 or", ""},
		{"stray close think", "reasoning 4</think>\n7", "7"},
		{"boxed space groups", `\boxed{1 000}`, "1000"},
		{"boxed thin space groups", `\boxed{1\,000\,000}`, "1000000"},
		{"boxed latex comma groups", `\boxed{1{,}000}`, "1000"},
		{"boxed unicode thin space", "\\boxed{12\u2009500}", "12500"},
		{"boxed negative groups", `\boxed{-2 500}`, "-2500"},
		{"boxed groups then decimals", `\boxed{1 000.25}`, "1000.25"},
		{"boxed not groups", `\boxed{3 10}`, "10"},
		{"hash space groups", "#### 1 000", "1000"},
		{"prose spaces stay two numbers", "rounds 1 200", "200"},
		{"nothing", "no digits here", ""},
		{"empty", "", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := ExtractNumber(c.text); got != c.want {
				t.Errorf("ExtractNumber(%q) = %q, want %q", c.text, got, c.want)
			}
		})
	}
}

// TestNormalizeNumberEqual checks that the spellings GSM8K answers come in
// compare equal once normalised.
func TestNormalizeNumberEqual(t *testing.T) {
	groups := [][]string{
		{"1000", "1,000", "1000.0", "$1000", "$1,000.00", "1000 dollars", " 1000 ", `\$1{,}000`, `1\,000`},
		{"2.5", "2.50", "5/2", "$2.5"},
		{"-5", "-5.0", "−5", "-5 degrees"},
		{"0", "0.00", "-0"},
	}
	for _, g := range groups {
		want := NormalizeNumber(g[0])
		if want == "" {
			t.Fatalf("NormalizeNumber(%q) = \"\"", g[0])
		}
		for _, s := range g {
			if got := NormalizeNumber(s); got != want {
				t.Errorf("NormalizeNumber(%q) = %q, want %q (as %q)", s, got, want, g[0])
			}
			if got := ExtractNumber(s); got != want {
				t.Errorf("ExtractNumber(%q) = %q, want %q", s, got, want)
			}
		}
	}
	for _, s := range []string{"", "abc", "1 and 2", "3 + 4"} {
		if got := NormalizeNumber(s); got != "" {
			t.Errorf("NormalizeNumber(%q) = %q, want \"\" (not one number)", s, got)
		}
	}
}

func TestGold(t *testing.T) {
	cases := []struct {
		task       Kind
		gold, want string
	}{
		{GSM8K, "Jordan has 2 children, 5*2=<<2*5=10>>10 changes.\n10/2=<<10/2=5>>5 changes.\n#### 5", "5"},
		{GSM8K, "#### 1,000", "1000"},
		{GSM8K, "42", "42"},
		{MMLU, "D", "D"},
		{MMLU, " d ", "D"},
		{MMLU, "The answer is (C)", "C"},
		{MMLU, "E", ""},
	}
	for _, c := range cases {
		if got := Gold(c.task, c.gold); got != c.want {
			t.Errorf("Gold(%s, %q) = %q, want %q", c.task, c.gold, got, c.want)
		}
	}
}

// FuzzExtractNumber checks that extraction never panics and that what it
// returns is canonical: normalising it again changes nothing.
func FuzzExtractNumber(f *testing.F) {
	for _, s := range []string{`\boxed{1,000}`, "#### -5", "3/4", `\boxed{\frac{1}{0}}`, "1/0", "-.5", "0/0", `\boxed{{{`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if len(s) > 4096 {
			return
		}
		got := ExtractNumber(s)
		if got != "" && NormalizeNumber(got) != got {
			t.Errorf("ExtractNumber(%q) = %q, not canonical (renormalises to %q)", s, got, NormalizeNumber(got))
		}
	})
}

func BenchmarkExtractNumber(b *testing.B) {
	text := ""
	for range 200 {
		text += "Step: 12 apples plus 30 pears is 42 fruit, $1,250.50 in total.\n"
	}
	text += `\boxed{42}`
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		ExtractNumber(text)
	}
}

// TestNormalizeNumberGroups: one number written with SI digit groups is
// that number (it was "": two numbers).
func TestNormalizeNumberGroups(t *testing.T) {
	for _, s := range []string{"1 000", "1\u00a0000", "1\u202f000", "1~000", `1\;000`} {
		if got := NormalizeNumber(s); got != "1000" {
			t.Errorf("NormalizeNumber(%q) = %q, want 1000", s, got)
		}
	}
}
