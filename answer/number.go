package answer

// gsm8k (ExtractNumber): the last \boxed{...} holding a number (braces
// nest), else the number after the last "####", else the last number.
// Numbers are written in canonical decimal form: "1,000", "1000.0",
// "$1000" and "1000 dollars" are "1000" (so are "1 000" and "1\,000" in a
// box or after "####"); "a/b" and \frac{a}{b} are divided
// (exact when the decimal ends, else 6 places). A box that holds no number
// makes the answer unreadable rather than falling back to the reasoning.

import (
	"math/big"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ExtractNumber reads a GSM8K answer from a response (or a reference
// solution) and returns it in canonical form (see NormalizeNumber):
//
//  1. the last \boxed{...} that holds a number gives its last number
//     (digit groups split by spaces or thin spaces, "1 000" or "1\,000",
//     are one number there and on the "####" line); when
//     the text has boxes but none holds a number, the answer is unreadable
//     ("") — the model answered in the asked-for form, but not a number;
//  2. else the number right after the last "####";
//  3. else the last number of the text.
//
// Reasoning inside <think>...</think> is ignored, and a response cut off
// inside an unclosed <think> has no answer.
func ExtractNumber(text string) string {
	s := answerText(text)
	if bs := boxes(s); len(bs) > 0 {
		for i := len(bs) - 1; i >= 0; i-- {
			if v := lastNumber(joinGroups(delatex(bs[i]))); v != "" {
				return v
			}
		}
		return ""
	}
	if i := strings.LastIndex(s, "####"); i >= 0 {
		line := s[i+len("####"):]
		if j := strings.IndexByte(line, '\n'); j >= 0 {
			line = line[:j]
		}
		if v := firstNumber(joinGroups(delatex(line))); v != "" {
			return v
		}
	}
	return lastNumber(delatex(s))
}

// groupsRe matches digit runs separated by a space, a no-break or thin
// space, or "~" (delatex has already dropped "\," and made "\;" a space).
var groupsRe = regexp.MustCompile(`\d+(?:[ ~\x{00A0}\x{2009}\x{202F}]\d+)+`)

// joinGroups writes "1 000 000" (SI digit grouping, as in "1\,000") as
// "1000000": in a run of digit groups whose first has 1–3 digits and every
// other exactly 3, the separators go. Other runs ("3 10", "12 3456") stay.
// Used where one number is expected (a box, the "####" line, NormalizeNumber),
// not on free text, where "rounds 1 200" may be two numbers.
func joinGroups(s string) string {
	work(len(s))
	var b strings.Builder
	last := 0
	for _, m := range groupsRe.FindAllStringIndex(s, -1) {
		if m[0] > 0 && (s[m[0]-1] == '.' || s[m[0]-1] == ',') {
			continue // decimals or comma groups: "1.5 000" is not 1.5000
		}
		gs := strings.FieldsFunc(s[m[0]:m[1]], func(r rune) bool { return !unicode.IsDigit(r) })
		if len(gs[0]) > 3 || slices.ContainsFunc(gs[1:], func(g string) bool { return len(g) != 3 }) {
			continue
		}
		b.WriteString(s[last:m[0]])
		b.WriteString(strings.Join(gs, ""))
		last = m[1]
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// number is one number found in a text: s[start:end], sign included.
type number struct {
	start, end int
	neg        bool
	lit        string   // a plain number as written, unsigned ("1,000.50")
	quo        *big.Rat // a quotient's value, signed; nil for a plain number
}

// canonical is the number in canonical form. A plain number is written
// from its text, exactly and in time linear in its length, whatever that
// is; only quotients, bounded by MaxQuotientBytes, are computed.
func (n number) canonical() string {
	if n.quo != nil {
		return canonical(n.quo)
	}
	return canonicalLiteral(n.lit, n.neg)
}

// rat is the number's value.
func (n number) rat() *big.Rat {
	if n.quo != nil {
		return n.quo
	}
	v, _ := new(big.Rat).SetString(strings.ReplaceAll(n.lit, ",", "")) // exponent within ±maxExpandExponent (numbers)
	if n.neg {
		v.Neg(v)
	}
	return v
}

// numberEnd returns the end of the number at s[p], as the regular
// expression `(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?`
// would match it (leftmost-first: 1–3 digits with ",ddd" groups, else a
// digit run, either with decimals; or ".5"; then an exponent, "1e3",
// "1.5e+20", "2E-3"), or -1 when none starts there.
func numberEnd(s string, p int) int {
	e := mantissaEnd(s, p)
	if e < 0 {
		return -1
	}
	return exponentEnd(s, e)
}

// exponentEnd returns the end of an exponent [eE][+-]?\d+ at s[i], or i.
func exponentEnd(s string, i int) int {
	if i >= len(s) || s[i] != 'e' && s[i] != 'E' {
		return i
	}
	j := i + 1
	if j < len(s) && (s[j] == '+' || s[j] == '-') {
		j++
	}
	if j >= len(s) || !isDigit(s[j]) {
		return i
	}
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	return j
}

// mantissaEnd is numberEnd without the exponent.
func mantissaEnd(s string, p int) int {
	digits := func(i int) int {
		for i < len(s) && isDigit(s[i]) {
			i++
		}
		return i
	}
	decimals := func(i int) int {
		if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
			return digits(i + 1)
		}
		return i
	}
	if s[p] == '.' {
		if e := decimals(p); e > p {
			return e
		}
		return -1
	}
	if !isDigit(s[p]) {
		return -1
	}
	e := digits(p)
	group := func(i int) bool {
		return i+3 < len(s) && s[i] == ',' && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3])
	}
	if e-p <= 3 && group(e) {
		for group(e) {
			e += 4
		}
	}
	return decimals(e)
}

// numbers reads the numbers of s, in order, and returns the first, the
// last and how many there are. A number glued to a letter on its left
// ("H2O", "Qwen3") is not one. A "-" or "−" right before the digits is a
// sign unless a letter, digit or ")" precedes it (then it is a subtraction
// or a range: "10-5", "11-19"). "a/b" with both sides plain numbers is the
// fraction a÷b when it spans at most MaxQuotientBytes. One pass, and no
// allocation for a plain number.
func numbers(s string) (first, last number, count int) {
	work(len(s))
	for p := 0; p < len(s); {
		end := numberEnd(s, p)
		if end < 0 {
			p++
			continue
		}
		start := p
		p = end
		if r, _ := utf8.DecodeLastRuneInString(s[:start]); unicode.IsLetter(r) {
			continue
		}
		lit := s[start:end]
		if count > 0 && start > 0 && s[start-1] == '/' && last.end == start-1 && nonzero(lit) && end-last.start <= MaxQuotientBytes &&
			smallExponent(lit) && (last.quo != nil || smallExponent(last.lit)) {
			v, _ := new(big.Rat).SetString(strings.ReplaceAll(lit, ",", ""))
			last.quo = new(big.Rat).Quo(last.rat(), v)
			last.end = end
			if count == 1 {
				first = last
			}
			continue
		}
		n := number{start: start, end: end, lit: lit}
		if sign, w := utf8.DecodeLastRuneInString(s[:start]); sign == '-' || sign == '−' {
			before, _ := utf8.DecodeLastRuneInString(s[:start-w])
			if !(unicode.IsLetter(before) || unicode.IsDigit(before) || before == ')') {
				n.neg = true
				n.start -= w
			}
		}
		last = n
		if count++; count == 1 {
			first = n
		}
	}
	return first, last, count
}

// maxExpandExponent bounds the exponents written out in full: "1e1024" is 1,025
// digits; "1e999999999" is kept as written ("1e999999999"), never expanded
// nor computed, so that reading stays linear in the text.
const maxExpandExponent = 1024

// splitExponent splits a number's text at its exponent: the mantissa, and
// the exponent's value when it is within ±maxExpandExponent (ok false past it).
// Without an exponent it is (lit, 0, true).
func splitExponent(lit string) (mant string, exp int, ok bool) {
	i := strings.IndexAny(lit, "eE")
	if i < 0 {
		return lit, 0, true
	}
	digits := strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(lit[i+1:], "+"), "-"), "0")
	if len(digits) > 4 {
		return lit[:i], 0, false
	}
	n := 0
	for j := 0; j < len(digits); j++ {
		n = 10*n + int(digits[j]-'0')
	}
	if n > maxExpandExponent {
		return lit[:i], 0, false
	}
	if lit[i+1] == '-' {
		n = -n
	}
	return lit[:i], n, true
}

// smallExponent reports whether a number's exponent, if any, is within
// ±maxExpandExponent: only such a number's value is computed (a quotient).
func smallExponent(lit string) bool {
	_, _, ok := splitExponent(lit)
	return ok
}

// nonzero reports whether a plain number's text has a digit other than 0.
func nonzero(lit string) bool {
	for i := 0; i < len(lit); i++ {
		if lit[i] == 'e' || lit[i] == 'E' {
			break
		}
		if lit[i] >= '1' && lit[i] <= '9' {
			return true
		}
	}
	return false
}

// canonicalLiteral writes a plain number (digits, thousands commas,
// decimals) as canonical writes its value: no commas, no leading zeros,
// no trailing decimal zeros, zero unsigned.
func canonicalLiteral(lit string, neg bool) string {
	if strings.IndexByte(lit, ',') >= 0 {
		lit = strings.ReplaceAll(lit, ",", "")
	}
	mant, exp, ok := splitExponent(lit)
	if !ok { // past ±maxExpandExponent: the mantissa canonical, the exponent as written
		i := strings.IndexAny(lit, "eE")
		e := lit[i+1:]
		sign := ""
		if e[0] == '+' || e[0] == '-' {
			sign, e = strings.TrimPrefix(e[:1], "+"), e[1:]
		}
		m := canonicalLiteral(mant, neg)
		if m == "0" || m == "-0" {
			return "0"
		}
		return m + "e" + sign + strings.TrimLeft(e, "0")
	}
	whole, frac, _ := strings.Cut(mant, ".")
	switch { // move the point by the exponent
	case exp > 0:
		frac += strings.Repeat("0", max(0, exp-len(frac)))
		whole, frac = whole+frac[:exp], frac[exp:]
	case exp < 0:
		whole = strings.Repeat("0", max(0, -exp-len(whole))) + whole
		cut := len(whole) + exp
		whole, frac = whole[:cut], whole[cut:]+frac
	}
	whole = strings.TrimLeft(whole, "0")
	frac = strings.TrimRight(frac, "0")
	if whole == "" && frac == "" {
		return "0"
	}
	if whole == "" {
		whole = "0"
	}
	out := whole
	if frac != "" {
		out = whole + "." + frac
	}
	if neg {
		out = "-" + out
	}
	return out
}

func lastNumber(s string) string {
	_, last, n := numbers(s)
	if n == 0 {
		return ""
	}
	return last.canonical()
}

func firstNumber(s string) string {
	first, _, n := numbers(s)
	if n == 0 {
		return ""
	}
	return first.canonical()
}

// NormalizeNumber returns the canonical form of the single number s, or ""
// when s is not one number. Currency signs, thousands commas, spaces, a
// percent sign and trailing units are ignored, so "1,000", "1000.0",
// "$1000" and "1000 dollars" all give "1000".
func NormalizeNumber(s string) string {
	first, _, n := numbers(joinGroups(delatex(s)))
	if n != 1 {
		return ""
	}
	return first.canonical()
}

// canonical writes v as a plain decimal: an integer without a point, a
// terminating fraction exactly with no trailing zeros ("2.50" → "2.5",
// 5/2 → "2.5"), any other fraction rounded to 6 decimals (1/3 →
// "0.333333"). Zero has no sign.
func canonical(v *big.Rat) string {
	if v.IsInt() {
		return v.Num().String()
	}
	digits, exact := decimalDigits(v.Denom())
	if !exact {
		digits = 6
	}
	s := v.FloatString(digits)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// decimalDigits returns how many decimals 1/d needs, and whether that is
// finite (d = 2^a·5^b needs max(a, b)).
func decimalDigits(d *big.Int) (int, bool) {
	x := new(big.Int).Set(d)
	var two, five int
	r := new(big.Int)
	for {
		q, m := new(big.Int).QuoRem(x, big.NewInt(2), r)
		if m.Sign() != 0 {
			break
		}
		x, two = q, two+1
	}
	for {
		q, m := new(big.Int).QuoRem(x, big.NewInt(5), r)
		if m.Sign() != 0 {
			break
		}
		x, five = q, five+1
	}
	return max(two, five), x.IsInt64() && x.Int64() == 1
}
