// Code kept verbatim from the answer reader before its caps (commit dad23c3),
// every top-level name prefixed "ref": the oracle TestReadSharedUnchanged and
// FuzzRead hold Read to. It is quadratic on hostile text; tests only.

package answer

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
func refExtractNumber(text string) string {
	s := refanswerPart(text)
	if bs := refboxes(s); len(bs) > 0 {
		for i := len(bs) - 1; i >= 0; i-- {
			if v := reflastNumber(refjoinGroups(refdelatex(bs[i]))); v != "" {
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
		if v := reffirstNumber(refjoinGroups(refdelatex(line))); v != "" {
			return v
		}
	}
	return reflastNumber(refdelatex(s))
}

// numRe matches an unsigned number: digits with proper thousands groups,
// plain digits, either with decimals, or a bare ".5".
var refnumRe = regexp.MustCompile(`(?:\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)(?:[eE][+-]?\d+)?`) // exponents: issue 34

// groupsRe matches digit runs separated by a space, a no-break or thin
// space, or "~" (delatex has already dropped "\," and made "\;" a space).
var refgroupsRe = regexp.MustCompile(`\d+(?:[ ~\x{00A0}\x{2009}\x{202F}]\d+)+`)

// joinGroups writes "1 000 000" (SI digit grouping, as in "1\,000") as
// "1000000": in a run of digit groups whose first has 1–3 digits and every
// other exactly 3, the separators go. Other runs ("3 10", "12 3456") stay.
// Used where one number is expected (a box, the "####" line, NormalizeNumber),
// not on free text, where "rounds 1 200" may be two numbers.
func refjoinGroups(s string) string {
	var b strings.Builder
	last := 0
	for _, m := range refgroupsRe.FindAllStringIndex(s, -1) {
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

// number is one number found in a text.
type refnumber struct {
	start, end int
	val        *big.Rat
}

// numbers lists the numbers of s in order. A number glued to a letter on its
// left ("H2O", "Qwen3") is not one. A "-" or "−" right before the digits is a
// sign unless a letter, digit or ")" precedes it (then it is a subtraction or
// a range: "10-5", "11-19"). "a/b" with both sides plain numbers is the
// fraction a÷b.
func refnumbers(s string) []refnumber {
	var out []refnumber
	for _, m := range refnumRe.FindAllStringIndex(s, -1) {
		start, end := m[0], m[1]
		if r, _ := utf8.DecodeLastRuneInString(s[:start]); unicode.IsLetter(r) {
			continue
		}
		v, ok := new(big.Rat).SetString(strings.ReplaceAll(s[start:end], ",", ""))
		if !ok {
			continue
		}
		if n := len(out); n > 0 && start > 0 && s[start-1] == '/' && out[n-1].end == start-1 && v.Sign() != 0 {
			out[n-1].val.Quo(out[n-1].val, v)
			out[n-1].end = end
			continue
		}
		if sign, w := utf8.DecodeLastRuneInString(s[:start]); sign == '-' || sign == '−' {
			before, _ := utf8.DecodeLastRuneInString(s[:start-w])
			if !(unicode.IsLetter(before) || unicode.IsDigit(before) || before == ')') {
				v.Neg(v)
				start -= w
			}
		}
		out = append(out, refnumber{start, end, v})
	}
	return out
}

func reflastNumber(s string) string {
	ns := refnumbers(s)
	if len(ns) == 0 {
		return ""
	}
	return refcanonical(ns[len(ns)-1].val)
}

func reffirstNumber(s string) string {
	ns := refnumbers(s)
	if len(ns) == 0 {
		return ""
	}
	return refcanonical(ns[0].val)
}

// canonical writes v as a plain decimal: an integer without a point, a
// terminating fraction exactly with no trailing zeros ("2.50" → "2.5",
// 5/2 → "2.5"), any other fraction rounded to 6 decimals (1/3 →
// "0.333333"). Zero has no sign.
func refcanonical(v *big.Rat) string {
	if v.IsInt() {
		return v.Num().String()
	}
	digits, exact := refdecimalDigits(v.Denom())
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
func refdecimalDigits(d *big.Int) (int, bool) {
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
