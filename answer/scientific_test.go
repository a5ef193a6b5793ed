package answer

import "testing"

// TestScientificNotation: a number with an exponent is read whole, where
// answers are numbers (GSM8K, arithmetic, MATH's plain numbers) and in
// gold (issue 34, cause 3: gold "1e3", "2.5e3", "0.1e1" read as "1",
// "2.5", "0.1"; "\boxed{1e3}" as "1"; "answer is 1.5e+20" as "20").
func TestScientificNotation(t *testing.T) {
	for _, c := range []struct {
		kind       Kind
		text, want string
	}{
		{GSM8K, "1e3", "1000"},
		{GSM8K, "2.5e3", "2500"},
		{GSM8K, "0.1e1", "1"},
		{GSM8K, "#### 1E3", "1000"},
		{GSM8K, `So \boxed{1e3}`, "1000"},
		{GSM8K, "The answer is 1.5e+20", "150000000000000000000"},
		{GSM8K, "The answer is 2e-3.", "0.002"},
		{GSM8K, "The answer is -1.25e2 degrees", "-125"},
		{GSM8K, "It is 1,000e3", "1000000"},
		{GSM8K, "Roughly 3e8 m/s", "300000000"},
		{GSM8K, "Huge: 7e999999999", "7e999999999"},
		{GSM8K, "Tiny: 0.50e-99999", "0.5e-99999"},
		{GSM8K, "1e3/4", "250"},
		// No exponent: an "e" not followed by digits, a letter before.
		{GSM8K, "I ate 5 eggs", "5"},
		{GSM8K, "The answer is 12e", "12"},
		{GSM8K, "H2e3 and 4", "4"},
		{Arithmetic, `\boxed{1e3}`, "1000"},
		{Math, `\boxed{2.5e3}`, "2500"},
	} {
		if got := Read(c.kind, c.text, Options{}).Answer; got != c.want {
			t.Errorf("%s %q: %q, want %q", c.kind, c.text, got, c.want)
		}
	}
	for _, c := range []struct {
		kind       Kind
		gold, want string
	}{
		{GSM8K, "1e3", "1000"}, {GSM8K, "2.5e3", "2500"}, {GSM8K, "0.1e1", "1"},
		{Arithmetic, "1e3", "1000"}, {Math, "1e3", "1000"}, {Math, "2.5E3", "2500"},
	} {
		if got := Gold(c.kind, c.gold); got != c.want {
			t.Errorf("gold %s %q: %q, want %q", c.kind, c.gold, got, c.want)
		}
	}
}
