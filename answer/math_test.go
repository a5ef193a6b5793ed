package answer

import "testing"

// TestNormalizeMathEqual checks the spellings the issue lists compare equal.
func TestNormalizeMathEqual(t *testing.T) {
	groups := [][]string{
		{`\frac{1}{2}`, `\dfrac12`, `1/2`, `0.5`, `$\frac{1}{2}$`, `\tfrac{1}{2}`},
		{`3`, `x = 3`, `3^\circ`, `3^{\circ}`, `\$3`, `3 \text{ cm}`, `3.`, `3.0`},
		{`\left( 1, 2 \right)`, `(1,2)`},
		{`15,000`, `15000`},
		{`-\frac{1}{4}`, `-0.25`},
		{`-0.5`, `\frac{-1}{2}`, `-\frac12`, `-1/2`, `\frac{1}{-2}`, `\dfrac{-1}{2}`, `-\frac{-1}{-2}`},
		{`0.5`, `\frac{-1}{-2}`, `-\frac{-1}{2}`},
		{`\frac{x+2}{7}`, `\dfrac{x+2}{7}`, `\frac{x + 2}{7}`},
		{`3s^2`, `3 s^2`},
		{`\sqrt2`, `\sqrt{2}`},
	}
	for _, g := range groups {
		want := NormalizeMath(g[0])
		for _, s := range g[1:] {
			if got := NormalizeMath(s); got != want {
				t.Errorf("NormalizeMath(%q) = %q, want %q (as %q)", s, got, want, g[0])
			}
		}
	}
	for _, pair := range [][2]string{{`\frac{1}{2}`, `\frac{1}{3}`}, {`x+2`, `x-2`}, {`(1,2)`, `(2,1)`}} {
		if NormalizeMath(pair[0]) == NormalizeMath(pair[1]) {
			t.Errorf("%q and %q normalise alike", pair[0], pair[1])
		}
	}
	if got := NormalizeMath(`\text{Devon}`); got != "Devon" {
		t.Errorf(`NormalizeMath(\text{Devon}) = %q, want Devon`, got)
	}
}

func TestExtractMath(t *testing.T) {
	cases := []struct{ text, want string }{
		{`So $x = 4$, and the answer is $\boxed{\dfrac{3}{4}}$.`, "0.75"},
		{"Adding gives 6. The answer is 6.", "6"},
		{"The answer is $\\frac{x+2}{7}$.", `\frac{x+2}{7}`},
		{"The answer is 12 apples.", "12"},
		{"Therefore, the value of $n$ is $11$.", "11"},
		{"Therefore, the minimum value of the quadratic expression is $-46$.", "-46"},
		{"So the value of the expression is 900.", "900"},
		{"the answer is not something we can determine from this", ""},
		{"We can't determine it, so we can't give a specific numerical answer.", ""},
		{"<think>The answer is 5.</think>", ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := ExtractMath(c.text); got != c.want {
			t.Errorf("ExtractMath(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestExtractInteger(t *testing.T) {
	cases := []struct{ text, want string }{
		{"6+19*28+14-10*7\n= 6 + 532 + 14 - 70\n= 482\n\nTherefore, the result is 482.", "482"},
		{"The result is -1,204.", "-1204"},
		{`\boxed{17} (checked twice: 2 ways)`, "17"},
		{`\boxed{1 000}`, "1000"},
		{"I cannot compute this.", ""},
	}
	for _, c := range cases {
		if got := ExtractInteger(c.text); got != c.want {
			t.Errorf("ExtractInteger(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}

func TestLetterPlaceholderForms(t *testing.T) {
	ch := []string{"Materialism", "Idealism", "Equal Rights Amendment", "None of the above"}
	cases := []struct{ text, want string }{
		{"Therefore, the correct answer is:\n\nX) A) Materialism refers to ...", "A"},
		{"the correct answer is indeed X) Equal Rights Amendment.", "C"},
		{"Therefore, the correct answer is:\n\nX) None of the above", "D"},
		{"<think>maybe (A)</think>\n**B**", "B"},
		{"Answer: (B)", "B"},
		{"X) A lot of things", ""},
		{"(X) Amendment", ""}, // a prefix of no option's whole text
		{"Thus:\n\n**Final Answer**: D) product of its inductance", "D"},
		{"Thus, analyzing each option, option D, 45,X, stands out as the correct answer. It is clear.\n\n(X)", "D"},
		{"(X) The best evidence for this truth is B) Radioactive dating of lunar samples.", "B"},
		{"The correct answer is either option A or option B.\n\n(X)", ""},
		{" (X) 45,X represents monosomy. The other options (A, B, & C) suggest abnormal numbers, so the answer is not theirs.", ""},
		{"Option C implies salt glands. Option D suggests nasal glands, which seems unlikely.", ""},
	}
	for _, c := range cases {
		if got := Extract(MMLU, c.text, Options{Choices: ch}); got != c.want {
			t.Errorf("Extract(mmlu, %q) = %q, want %q", c.text, got, c.want)
		}
	}
}
