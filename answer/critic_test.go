package answer

import (
	"strings"
	"testing"
)

func TestCheckArithmetic(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       Arith
	}{
		{"product with units", "4 pieces * 30 days = 120 pieces\nSo \\boxed{120}.", Arith{1, 1, true, false}},
		{"x as times", "There are 7 days in a week, so 4 weeks is 4 x 7 = 28 days.", Arith{1, 1, true, false}},
		{"glued x", "The area is 4x7=28.", Arith{1, 1, true, false}},
		{"times word", "She reads 12 times 3 = 36 pages.", Arith{1, 1, true, false}},
		{"money", "$5 + $7 = $12, so she spent $12.", Arith{1, 1, true, false}},
		{"thousands commas", "The price is 1,200 * 3 = 3,600 dollars.", Arith{1, 1, true, false}},
		{"division", "48/2 = 24 cookies each.\n#### 24", Arith{1, 1, true, false}},
		{"slip", "3 * 12 = 38, so the answer is 38.", Arith{1, 0, false, true}},
		{"slip not the answer", "3 * 12 = 38 apples. He gives away 6, leaving 30.", Arith{1, 0, false, false}},
		{"chain across lines, slip at the end", "29 + 22 * 8 + 11 - 20 * 0\n= 29 + 176 + 11 - 20 * 0\n= 29 + 176 + 11 - 0\n= 205",
			Arith{3, 2, false, true}},
		{"continued equations", "Number of packs = Total pieces / Pieces per pack\n = 120 pieces / 15 pieces per pack\n = 8 packs", Arith{1, 1, true, false}},
		{"two equations in a sentence", "3 * 12 = 36 apples, and 36 + 4 = 41 in all.", Arith{2, 1, false, true}},
		{"percent of", "25% of 80 = 20, so 80 - 20 = 60.", Arith{2, 2, true, false}},
		{"percent either way", "0.25 * 100 = 25%", Arith{1, 1, true, false}},
		{"percent as a share", "50/200 = 25%", Arith{1, 1, true, false}},
		{"rounded result", "10/3 = 3.33 liters", Arith{1, 1, true, false}},
		{"truncated result", "7/2 = 3 full boxes", Arith{1, 1, true, false}},
		{"rounding does not excuse an exact slip", "7 + 5 = 13", Arith{1, 0, false, true}},
		{"decimal slip", "2.5 * 4 = 11.0", Arith{1, 0, false, true}},
		{"negative and power", "-2^2 = -4, and 2^10 = 1024", Arith{2, 2, true, false}},
		{"parentheses", "(3 + 4) * 2 = 14", Arith{1, 1, true, false}},
		{"implicit product", "2(3 + 4) = 14", Arith{1, 1, true, false}},
		{"latex", `$\frac{1}{2} \cdot 10 = 5$ and $3 \times 4 = 12$, so \boxed{12}`, Arith{2, 2, true, false}},
		{"latex nested fraction", `$\dfrac{\frac{1}{2}}{4} = 0.125$`, Arith{1, 1, true, false}},
		{"latex text unit", `$5 \text{ apples} \times 3 = 15 \text{ apples}$`, Arith{1, 1, true, false}},
		{"markdown bold", "**Total:** 3 * 4 = **12**", Arith{1, 1, true, false}},
		{"bullet", "* 3 + 4 = 7\n- 7 * 2 = 14", Arith{2, 2, true, false}},
		{"parenthesised remark", "She has 5 (since 2 + 3 = 5) apples.", Arith{1, 1, true, false}},
		{"repeated equation counts once", "2 + 2 = 4. Again, 2 + 2 = 4. And 2+2 = 4.", Arith{1, 1, true, false}},

		// What is not an equation to check.
		{"same sides", "7+0*1+9-25*0 = 7+0*1+9-25*0 = 7+0*1+9-25*0", Arith{}},
		{"label", "Step 1 = 3 * 4", Arith{}},
		{"label then a chain", "Step 1 = 3 * 4 = 12", Arith{1, 1, true, false}},
		{"unit conversion", "2 hours = 2 * 60 = 120 minutes", Arith{1, 1, true, false}},
		{"no operation", "x = 5, 20 = 20, 1 dozen = 12 eggs", Arith{}},
		{"variable", "2x + 3 = 7, so x = 2.", Arith{}},
		{"spaced variable", "2 x + 3 = 7", Arith{}},
		{"variable on the right", "$9009 = 2005 + b$", Arith{}},
		{"variable on the left", "b - 2005 = 7004", Arith{}},
		{"named quantity", "Total eggs = 3 eggs/day x 28 days", Arith{}},
		{"word minus", "cost - 3 = 5", Arith{}},
		{"mixed number", "2 1/2 * 4 = 10", Arith{}},
		{"date", "On 2023-10-05 we had = 5", Arith{}},
		{"time", "5:00pm - 3 hours = 2:00pm", Arith{}},
		{"approximately", "10/3 ≈ 3, 22/7 \\approx 3.14", Arith{}},
		{"comparisons", "3 + 4 >= 7 and 2 <= 5 and 3 == 3", Arith{}},
		{"square root", `$\sqrt{16} = 4$`, Arith{}},
		{"subscript", `$E_J = 0.5 \times 20$`, Arith{}},
		{"coefficient with a power", "6ab^2 = 54", Arith{}},
		{"model name", "Qwen3 + 2 = 5", Arith{}},
		{"division by zero", "5 / 0 = 0", Arith{}},
		{"power too large to compute", "((10^64)^64)^64 = 1", Arith{}},
		{"empty", "", Arith{}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := CheckArithmetic(GSM8K, c.text); got != c.want {
				t.Errorf("CheckArithmetic(%q) = %+v, want %+v", c.text, got, c.want)
			}
		})
	}
}

func TestCritic(t *testing.T) {
	for _, c := range []struct {
		kind   Kind
		text   string
		conf   float64
		wantOK bool
	}{
		{GSM8K, "3 * 4 = 12 and 12 + 1 = 13. \\boxed{13}", 1, true},
		{GSM8K, "3 * 4 = 12 and 12 + 1 = 14, then 14 - 4 = 10. \\boxed{10}", 2.0 / 3, true},
		{GSM8K, "3 * 4 = 12 and 12 + 2 = 15. \\boxed{15}", 0, true}, // the answer is a slip's result
		{GSM8K, "The answer is \\boxed{70}.", 0, false},
		{Arithmetic, "29 + 22 * 8 + 11 - 20 * 0 = 216", 1, true},
		{Arithmetic, "7+0*1+9-25*0 = 7+1-25*0 = -17", 0, true},
		{Math, `$\frac{3}{4} \cdot 8 = 6$, so the answer is $\boxed{6}$.`, 1, true},
		{MMLU, "3 * 4 = 12, so the answer is (B).", 0, false},
		{Kind("other"), "3 * 4 = 12", 0, false},
	} {
		conf, ok := Critic(c.kind, c.text)
		if ok != c.wantOK || ok && conf != c.conf {
			t.Errorf("Critic(%s, %q) = %v, %v; want %v, %v", c.kind, c.text, conf, ok, c.conf, c.wantOK)
		}
	}
}

// TestReadCritic checks that Read carries the critic, and nil when the
// text checks nothing.
func TestReadCritic(t *testing.T) {
	r := Read(GSM8K, "6 * 7 = 42. \\boxed{42}", Options{Critic: true})
	if r.Critic == nil || *r.Critic != 1 {
		t.Errorf("Read critic = %v, want 1", r.Critic)
	}
	if r := Read(GSM8K, "\\boxed{42}", Options{Critic: true}); r.Critic != nil {
		t.Errorf("Read critic of a bare answer = %v, want nil", *r.Critic)
	}
	if r := Read(GSM8K, "6 * 7 = 42. \\boxed{42}", Options{}); r.Critic != nil {
		t.Errorf("Read without Options.Critic ran the critic: %v", *r.Critic)
	}
}

func FuzzCheckArithmetic(f *testing.F) {
	for _, s := range []string{"3 * 4 = 12", "2^64^64 = 1", `\frac{1}{0} = 5`, "(((1 = 2", "1,000,000 = 10^6", "-(-(-3)) = -3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a := CheckArithmetic(GSM8K, s)
		if a.Held > a.Equations || a.Held < 0 {
			t.Fatalf("%q: %+v", s, a)
		}
		if c, ok := Critic(GSM8K, s); ok && (c < 0 || c > 1) {
			t.Fatalf("%q: critic %v outside [0, 1]", s, c)
		}
	})
}

// criticBenchText is a worked solution of the kinds the critic reads:
// words, numbers with units and percentages, LaTeX fractions and
// operators, markdown bullets and bold, Unicode operators and letters.
const criticBenchText = `**Step 1:** Janet's ducks lay 16 eggs per day. She eats 3 for breakfast
and bakes muffins with 4, so 16 - 3 - 4 = 9 eggs are left.
- Each egg sells for $2, so she makes 9 × 2 = 18 dollars a day.
- Over a week: \(18 \times 7 = 126\) dollars.
The share kept is \frac{9}{16} = 0.5625, i.e. 56.25\% of the eggs; 0.25 × 100 = 25%.
Let x be the price: 2x + 3 = 7 ⇒ x = 2. Déjà vu: 1,000 / 8 = 125 and (3 + 4) · 5 = 35.
`

// BenchmarkTokenize reads criticBenchText ×16 (about 6 KiB) into the
// critic's tokens.
func BenchmarkTokenize(b *testing.B) {
	text := strings.Repeat(criticBenchText, 16)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for range b.N {
		tokenize(text)
	}
}
