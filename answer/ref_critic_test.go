// Code kept verbatim from the answer reader before its caps (commit dad23c3),
// every top-level name prefixed "ref": the oracle TestReadSharedUnchanged and
// FuzzRead hold Read to. It is quadratic on hostile text; tests only. One
// change since: reftokenize's closures became reftokenizer's methods (the
// same statements), to keep every function under 100 lines.

package answer

import (
	"math/big"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Arith is what CheckArithmetic finds in a text: the equations it could
// check and whether the text's answer is the stated result of one.
type refArith struct {
	// Equations counts the distinct checkable equations: "A = B" where
	// both sides are arithmetic on numbers alone and at least one side
	// computes something. Held counts those that hold.
	Equations, Held int
	// AnswerHeld and AnswerFailed report that the text's answer (Extract
	// by its kind) is the stated result — a lone number on the right — of
	// an equation that holds, or of one that does not.
	AnswerHeld, AnswerFailed bool
}

// Critic is a critic's confidence in a text's answer, read from the text
// alone: deterministic, no model. For gsm8k, arithmetic and math it checks
// the arithmetic the reasoning states (CheckArithmetic) and returns the
// share of checkable equations that hold, 0 when the answer is the stated
// result of a failing equation; ok is false when the text states no
// checkable equation, and for mmlu, where a text holds no evidence of this
// kind. It is the confidence replays and imports fill a missing
// AgentState.Confidence with when asked (replay.WithCritic).
func refCritic(kind refKind, text string) (conf float64, ok bool) {
	switch kind {
	case refGSM8K, refArithmetic, refMath:
	default:
		return 0, false
	}
	a := refCheckArithmetic(kind, text)
	if a.Equations == 0 {
		return 0, false
	}
	if a.AnswerFailed {
		return 0, true
	}
	return float64(a.Held) / float64(a.Equations), true
}

// CheckArithmetic finds the equations a text states and checks them with
// exact rational arithmetic. An equation is two sides joined by "=", each
// a whole arithmetic expression — numbers ("1,000", "$5", "20%", "3.5"),
// + − × ÷ / ^ * (also "x", "times", LaTeX \times, \cdot, \div, \frac{a}{b}),
// parentheses, unit words after a number ("4 pieces * 30 days") — and at
// least one side an operation: "x = 5", "Step 1 = ..." and "2 hours = 2 *
// 60" (a quantity named by a label or a unit on the left) are not checked.
// Chains "a = b = c" give an equation per "=". A side next to a variable
// ("2x + 3 = 7", "2005 + b"), a dangling operator, a LaTeX command it does
// not know (\sqrt, \pi) or another number is no side. A line starting
// with "=" continues the previous one. A stated result may be rounded to
// the decimals it shows (10/3 = 3.33, 7/2 = 3), and a percentage may be
// written either way (0.25 × 100 = 25%). Each distinct equation counts
// once, and one whose sides read the same ("7+0*1 = 7+0*1") not at all.
// Reasoning inside <think> counts: it is where the computing is.
func refCheckArithmetic(kind refKind, text string) refArith {
	var a refArith
	ts, src := reftokenize(text)
	if len(ts) == 0 {
		return a
	}
	starts := make(map[int]refexpr)
	ends := make(map[int]refexpr)
	for i := 0; i < len(ts); {
		if !refoperandStart(ts, i) {
			i++
			continue
		}
		p := refparser{ts: ts, i: i}
		v, ok := p.refexpr()
		if !ok && ts[i].kind == reftLParen {
			i++ // "(so 3 + 4 = 7)": the parenthesis is prose
			continue
		}
		e := refexpr{s: i, e: p.i, val: v, ops: p.ops, pct: p.pct, units: p.units, ok: ok && refcontext(ts, i, p.i)}
		if e.ok && e.ops == 0 {
			e.single = v
			for _, t := range ts[i:p.i] {
				if t.kind == reftNum {
					e.dec, e.written = t.dec, v
					if t.pct {
						e.dec += 2
						e.written = new(big.Rat).Mul(v, big.NewRat(100, 1))
					}
					break
				}
			}
		}
		starts[i] = e
		ends[p.i] = e
		i = max(p.i, i+1)
	}
	final := ""
	seen := map[string]bool{}
	for q := range ts {
		if ts[q].kind != reftEq {
			continue
		}
		l, okL := ends[q]
		r, okR := starts[q+1]
		if !okL || !okR || !l.ok || !r.ok || l.ops+r.ops == 0 {
			continue
		}
		if l.ops == 0 && (l.units || l.s > 0 && ts[l.s-1].kind == reftWord) {
			continue // "2 hours = 2 * 60", "Step 1 = 3 * 4": a label or a quantity, not a value
		}
		lt, rt := refsqueeze(src[ts[l.s].off:ts[l.e-1].end]), refsqueeze(src[ts[r.s].off:ts[r.e-1].end])
		if lt == rt || seen[lt+"="+rt] {
			continue
		}
		seen[lt+"="+rt] = true
		a.Equations++
		held := refagree(l, r)
		if held {
			a.Held++
		}
		if r.single == nil {
			continue
		}
		if final == "" {
			final = refExtract(kind, text, refOptions{})
			if final == "" {
				final = "\x00" // no answer: nothing matches
			}
		}
		if stated := refcanonical(r.written); stated == final {
			if held {
				a.AnswerHeld = true
			} else {
				a.AnswerFailed = true
			}
		}
	}
	return a
}

// squeeze drops the spaces of s, so that "3 * 4" and "3*4" are one
// equation.
func refsqueeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// expr is one arithmetic expression found in the tokens: ts[s:e].
type refexpr struct {
	s, e  int
	val   *big.Rat
	ops   int  // operations in it; 0: a lone number
	pct   bool // a percentage appears in it
	units bool // a unit word follows a number in it
	ok    bool // a whole expression: parsed, and no variable or operator next to it
	// single is the value of a lone number (ops 0), written its value as
	// written (25 for "25%"), dec the decimals of single it shows.
	single, written *big.Rat
	dec             int
}

// agree reports whether two sides are equal: exactly, or — when one side
// is a lone number showing d decimals and the other needs rounding there
// — within one unit of its last decimal; a percentage on one side only
// may also compare ×100 ("0.25 * 100 = 25%").
func refagree(l, r refexpr) bool {
	if l.val.Cmp(r.val) == 0 {
		return true
	}
	stated, computed := r, l
	if r.ops != 0 {
		stated, computed = l, r
	}
	if stated.ops != 0 || stated.single == nil {
		return false
	}
	cs := []*big.Rat{computed.val}
	if l.pct != r.pct {
		cs = append(cs, new(big.Rat).Mul(computed.val, big.NewRat(100, 1)), new(big.Rat).Quo(computed.val, big.NewRat(100, 1)))
	}
	unit := new(big.Rat).SetFrac(big.NewInt(1), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(stated.dec)), nil))
	for _, c := range cs {
		if c.Cmp(stated.val) == 0 {
			return true
		}
		if new(big.Rat).Quo(c, unit).IsInt() {
			continue // no rounding needed, so none excuses a difference
		}
		d := new(big.Rat).Sub(c, stated.val)
		if d.Abs(d).Cmp(unit) < 0 {
			return true
		}
	}
	return false
}

// context reports whether ts[s:e] stands alone: no operator, variable,
// number or closing parenthesis right before it (a dangling "b +", "2 1/2",
// "(a) 3"), a unary minus not after a word ("cost - 3"), and no operator,
// variable, opening parenthesis or number right after it (a number may
// follow the unit words that end it).
func refcontext(ts []reftok, s, e int) bool {
	if s > 0 {
		switch ts[s-1].kind {
		case reftOp, reftVar, reftNum, reftRParen:
			return false
		case reftWord:
			if ts[s].kind == reftOp {
				return false
			}
		}
	}
	if e < len(ts) {
		switch ts[e].kind {
		case reftOp, reftVar, reftLParen:
			return false
		case reftNum:
			return ts[e-1].kind == reftWord // "5 and 3 * 4": a new expression after the unit words
		}
	}
	return true
}

// operandStart reports whether an operand starts at ts[i]: a number, "(",
// or a minus before one of them.
func refoperandStart(ts []reftok, i int) bool {
	if i >= len(ts) {
		return false
	}
	switch ts[i].kind {
	case reftNum, reftLParen:
		return true
	case reftOp:
		return ts[i].op == '-' && i+1 < len(ts) && (ts[i+1].kind == reftNum || ts[i+1].kind == reftLParen)
	}
	return false
}

// maxExponent and maxPowerBits bound the powers computed exactly, so that
// "((10^64)^64)^64" costs nothing.
const (
	refmaxExponent  = 64
	refmaxPowerBits = 1 << 12
)

// parser evaluates an expression: + and − of terms of × and ÷ (also
// implied: "x", "times", "of" after a percentage, "2(3)") of powers.
type refparser struct {
	ts    []reftok
	i     int
	ops   int
	pct   bool
	units bool
	depth int // parentheses open
}

// maxDepth bounds the nesting of parentheses: deeper is no arithmetic a
// text states, and the bound keeps a run of "(" from costing a parse each.
const refmaxDepth = 8

func (p *refparser) at(kind reftokKind, op byte) bool {
	return p.i < len(p.ts) && p.ts[p.i].kind == kind && (kind != reftOp || p.ts[p.i].op == op)
}

func (p *refparser) refexpr() (*big.Rat, bool) {
	v, ok := p.term()
	for ok && (p.at(reftOp, '+') || p.at(reftOp, '-')) {
		op := p.ts[p.i].op
		if !refoperandStart(p.ts, p.i+1) {
			return nil, false // "2005 + b": a dangling operator
		}
		p.i++
		var w *big.Rat
		if w, ok = p.term(); ok {
			p.ops++
			if op == '+' {
				v.Add(v, w)
			} else {
				v.Sub(v, w)
			}
		}
	}
	return v, ok
}

// mulWord reports whether ts[i] is a word that multiplies when an operand
// follows: "x", "times", and "of" after a percentage ("20% of 50").
func (p *refparser) mulWord(i int, afterPct bool) bool {
	t := &p.ts[i]
	if t.kind != reftWord && t.kind != reftVar {
		return false
	}
	return (t.word == "x" || t.word == "times" || afterPct && t.word == "of") && refoperandStart(p.ts, i+1)
}

func (p *refparser) term() (*big.Rat, bool) {
	v, ok := p.unary()
	for ok && p.i < len(p.ts) {
		t := &p.ts[p.i]
		var op byte
		switch {
		case t.kind == reftOp && (t.op == '*' || t.op == '/'):
			op = t.op
			if !refoperandStart(p.ts, p.i+1) {
				return nil, false
			}
			p.i++
		case p.mulWord(p.i, p.lastPct()):
			op = '*'
			p.i++
		case t.kind == reftLParen && t.glued:
			op = '*' // "2(3 + 4)"
		default:
			return v, true
		}
		var w *big.Rat
		if w, ok = p.unary(); !ok {
			break
		}
		p.ops++
		if op == '*' {
			v.Mul(v, w)
		} else {
			if w.Sign() == 0 {
				return nil, false
			}
			v.Quo(v, w)
		}
	}
	return v, ok
}

// lastPct reports whether the token before the current one (past any unit
// words) is a percentage.
func (p *refparser) lastPct() bool {
	return p.i > 0 && p.ts[p.i-1].kind == reftNum && p.ts[p.i-1].pct
}

// unary is a minus before a power: -2^2 is -(2^2).
func (p *refparser) unary() (*big.Rat, bool) {
	if p.at(reftOp, '-') {
		p.i++
		v, ok := p.unary()
		if ok {
			v.Neg(v)
		}
		return v, ok
	}
	return p.power()
}

// power is a primary, or a primary to an integer power (at most
// maxExponent, computed exactly).
func (p *refparser) power() (*big.Rat, bool) {
	b, ok := p.primary()
	if !ok || !p.at(reftOp, '^') {
		return b, ok
	}
	if !refoperandStart(p.ts, p.i+1) {
		return nil, false
	}
	p.i++
	e, ok := p.unary()
	if !ok || !e.IsInt() || !e.Num().IsInt64() {
		return nil, false
	}
	n := e.Num().Int64()
	if n > refmaxExponent || n < -refmaxExponent || b.Sign() == 0 && n < 0 ||
		int64(max(b.Num().BitLen(), b.Denom().BitLen()))*refabs(n) > refmaxPowerBits {
		return nil, false
	}
	p.ops++
	num := new(big.Int).Exp(b.Num(), big.NewInt(refabs(n)), nil)
	den := new(big.Int).Exp(b.Denom(), big.NewInt(refabs(n)), nil)
	if n < 0 {
		num, den = den, num
	}
	return new(big.Rat).SetFrac(num, den), true
}

func refabs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func (p *refparser) primary() (*big.Rat, bool) {
	if p.i >= len(p.ts) {
		return nil, false
	}
	t := &p.ts[p.i]
	switch t.kind {
	case reftNum:
		p.i++
		p.pct = p.pct || t.pct
		v := new(big.Rat).Set(t.val)
		p.skipUnits()
		return v, true
	case reftLParen:
		if p.depth == refmaxDepth {
			return nil, false
		}
		p.i++
		p.depth++
		v, ok := p.refexpr()
		p.depth--
		if !ok || !p.at(reftRParen, 0) {
			return nil, false
		}
		p.i++
		p.skipUnits()
		return v, true
	}
	return nil, false
}

// maxUnitWords bounds the words read as a unit after a number ("pieces
// per pack").
const refmaxUnitWords = 3

// skipUnits passes the unit words after an operand: up to maxUnitWords
// words of two letters or more, and "/" between two of them ("eggs/day"),
// but not a word that multiplies here ("x 28").
func (p *refparser) skipUnits() {
	for n := 0; n < refmaxUnitWords && p.i < len(p.ts); {
		t := &p.ts[p.i]
		switch {
		case t.kind == reftWord && !p.mulWord(p.i, p.lastPct()):
			p.i++
			n++
			p.units = true
		case t.kind == reftOp && t.op == '/' && t.glued && n > 0 && p.i+1 < len(p.ts) && p.ts[p.i+1].kind == reftWord && p.ts[p.i+1].glued:
			p.i++
		default:
			return
		}
	}
}

// Tokens of the arithmetic reader.
type reftokKind uint8

const (
	reftNum    reftokKind = iota
	reftOp                // + - * / ^
	reftLParen            // ( [ {
	reftRParen            // ) ] }
	reftEq                // =
	reftWord              // a word of two letters or more (prose or a unit), or "a", "I"
	reftVar               // a variable: another single letter ("x" multiplies between numbers), a word with digits, an unknown LaTeX command
	reftBreak             // what ends an expression: punctuation, a line end, ≈, <, ==, ...
)

type reftok struct {
	kind     reftokKind
	op       byte
	val      *big.Rat // tNum; a percentage is its value / 100
	pct      bool
	dec      int    // tNum: decimals as written
	word     string // tWord, tVar: lower-cased
	glued    bool   // no space before it
	nl       bool   // tBreak: a line end
	off, end int    // bytes of the token in the read text
}

var (
	// critFracRe is \frac{a}{b} with no brace inside a or b (innermost
	// first), and \frac12.
	refcritFracRe      = regexp.MustCompile(`\\[dt]?frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}`)
	refcritFracShortRe = regexp.MustCompile(`\\[dt]?frac\s*(\d)\s*(\d)`)
	// dateRe is a date: 2023-10-05, 12/25/2023.
	refdateRe = regexp.MustCompile(`^(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{4})\b`)
	// textCmdRe is a LaTeX command whose argument is prose.
	reftextCmdRe = regexp.MustCompile(`\\(?:text|textbf|textit|mathrm|mathbf|mbox|operatorname)\s*\{([^{}]*)\}`)
)

// laTeX rewrites the LaTeX of arithmetic into plain text: \frac{a}{b} is
// ((a)/(b)), \text{...} its words, \left and \right go.
func reflaTeX(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	for range 4 { // nested fractions, innermost first
		t := refcritFracRe.ReplaceAllString(s, "(($1)/($2))")
		if t == s {
			break
		}
		s = t
	}
	s = refcritFracShortRe.ReplaceAllString(s, "(($1)/($2))")
	s = reftextCmdRe.ReplaceAllString(s, " $1 ")
	return strings.NewReplacer(`\left`, "", `\right`, "", `\boxed`, " ", `\fbox`, " ", `{,}`, ",").Replace(s)
}

// latexOps are the LaTeX commands read as operators or as a break; any
// other command is a variable.
var reflatexOps = map[string]byte{
	"times": '*', "cdot": '*', "ast": '*', "div": '/',
	"approx": 0, "neq": 0, "ne": 0, "le": 0, "leq": 0, "ge": 0, "geq": 0, "lt": 0, "gt": 0,
	"pm": 0, "mp": 0, "equiv": 0, "sim": 0, "quad": 0, "qquad": 0, "implies": 0, "Rightarrow": 0,
	"rightarrow": 0, "to": 0, "therefore": 0, "and": 0, "text": 0,
}

// tokenize reads text into arithmetic tokens, and returns the text they
// index (text with its LaTeX rewritten).
func reftokenize(text string) ([]reftok, string) {
	s := reflaTeX(text)
	z := reftokenizer{s: s, space: true}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			z.emit(reftok{kind: reftBreak, nl: true, off: i, end: i + 1})
			z.space = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '$':
			z.space = true
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && refisDigit(s[i+1]):
			i = refreadNumber(s, i, &z.ts, z.space)
			z.space = false
		case c == '\\':
			i = z.command(i)
		case refisLetter(c) || c >= utf8.RuneSelf && refstartsLetter(s[i:]):
			i = z.word(i)
		default:
			i = z.symbol(i)
		}
	}
	return refjoinLines(z.ts), s
}

// reftokenizer is reftokenize's state (its closures' variables before
// the cut into the methods below).
type reftokenizer struct {
	s     string
	ts    []reftok
	space bool
}

func (z *reftokenizer) emit(t reftok) {
	t.glued = !z.space
	z.ts = append(z.ts, t)
	z.space = false
}

func (z *reftokenizer) lineStart() bool {
	ts := z.ts
	return len(ts) == 0 || ts[len(ts)-1].kind == reftBreak && ts[len(ts)-1].nl
}

// command reads the LaTeX command at s[i] and returns the index after it.
func (z *reftokenizer) command(i int) int {
	s := z.s
	j := i + 1
	for j < len(s) && refisLetter(s[j]) {
		j++
	}
	name := s[i+1 : j]
	switch {
	case name == "" && j < len(s) && s[j] == '%':
		if n := len(z.ts); n > 0 && z.ts[n-1].kind == reftNum && !z.ts[n-1].pct && z.ts[n-1].end == i {
			refmarkPct(&z.ts[n-1], j+1)
		}
		j++
	case name == "":
		j = min(j+1, len(s)) // \, \; \! \$ \( \[ ...: spacing and delimiters
	default:
		if op, ok := reflatexOps[name]; ok {
			if op != 0 {
				z.emit(reftok{kind: reftOp, op: op, off: i, end: j})
			} else {
				z.emit(reftok{kind: reftBreak, off: i, end: j})
			}
		} else {
			z.emit(reftok{kind: reftVar, word: name, off: i, end: j})
		}
	}
	z.space = true
	return j
}

// word reads the word starting at s[i] and returns the index after it.
func (z *reftokenizer) word(i int) int {
	s := z.s
	j := i
	digits := false
	for j < len(s) {
		if refisLetter(s[j]) || s[j] == '\'' {
			j++
		} else if refisDigit(s[j]) || s[j] == '_' {
			digits = true
			j++
		} else if s[j] >= utf8.RuneSelf && refstartsLetter(s[j:]) {
			_, w := utf8.DecodeRuneInString(s[j:])
			j += w
		} else {
			break
		}
	}
	w := strings.ToLower(s[i:j])
	kind := reftWord
	if digits || len(w) == 1 && w != "a" && w != "i" || j < len(s) && s[j] == '^' {
		kind = reftVar
	}
	z.emit(reftok{kind: kind, word: w, off: i, end: j})
	return j
}

// symbol reads the character at s[i] and returns the index after it.
func (z *reftokenizer) symbol(i int) int {
	s := z.s
	r, w := utf8.DecodeRuneInString(s[i:])
	t := reftok{kind: reftBreak, off: i, end: i + w}
	switch r {
	case '+', '-', '−', '*', '×', '·', '⋅', '/', '÷', '^':
		t.kind, t.op = reftOp, refopOf(r)
		if r == '*' && i+1 < len(s) && s[i+1] == '*' { // markdown bold
			for i < len(s) && s[i] == '*' {
				i++
			}
			z.space = true
			return i
		}
		if (t.op == '*' || t.op == '-' || t.op == '+') && z.lineStart() && i+w < len(s) && s[i+w] == ' ' {
			t.kind = reftBreak // a bullet
		}
	case '=':
		t.kind = reftEq
		if i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '>') {
			t.kind, t.end = reftBreak, i+2
		} else if n := len(z.ts); n > 0 && z.ts[n-1].end == i && z.ts[n-1].kind == reftBreak && strings.ContainsAny(s[z.ts[n-1].off:i], "<>!:") {
			t.kind = reftBreak
		}
	case '(', '[', '{':
		t.kind = reftLParen
	case ')', ']', '}':
		t.kind = reftRParen
	}
	z.emit(t)
	return t.end
}

// joinLines drops the line ends that do not end an expression: before a
// line starting with "=", and after a line ending with "=" or an operator.
func refjoinLines(ts []reftok) []reftok {
	out := ts[:0]
	for i, t := range ts {
		if t.kind == reftBreak && t.nl {
			j := i + 1
			for j < len(ts) && ts[j].kind == reftBreak && ts[j].nl {
				j++
			}
			next := j < len(ts) && ts[j].kind == reftEq
			prev := len(out) > 0 && (out[len(out)-1].kind == reftEq || out[len(out)-1].kind == reftOp)
			if next || prev {
				continue
			}
		}
		out = append(out, t)
	}
	return out
}

func refopOf(r rune) byte {
	switch r {
	case '−', '-':
		return '-'
	case '*', '×', '·', '⋅':
		return '*'
	case '/', '÷':
		return '/'
	}
	return byte(r)
}

// readNumber reads the number at s[i]: digits, thousands groups ("1,000"),
// decimals, and a "%" right after it. A letter glued after it makes it a
// variable's coefficient ("2x") unless it is a unit of two letters or more
// ("5kg") or "x" before a digit ("4x7": a product).
func refreadNumber(s string, i int, ts *[]reftok, space bool) int {
	start := i
	for i < len(s) && refisDigit(s[i]) {
		i++
	}
	if i-start <= 3 && i > start {
		for i+3 < len(s) && s[i] == ',' && refisDigit(s[i+1]) && refisDigit(s[i+2]) && refisDigit(s[i+3]) && (i+4 == len(s) || !refisDigit(s[i+4])) {
			i += 4
		}
	}
	dec := 0
	if i+1 < len(s) && s[i] == '.' && refisDigit(s[i+1]) {
		i++
		for i < len(s) && refisDigit(s[i]) {
			i++
			dec++
		}
	}
	if start > 1 && s[start-1] == ':' && refisDigit(s[start-2]) || i+1 < len(s) && s[i] == ':' && refisDigit(s[i+1]) {
		// a time of day ("5:00pm") or a ratio ("3:2"): no quantity to compute with
		*ts = append(*ts, reftok{kind: reftVar, glued: !space, off: start, end: i})
		return i
	}
	if m := refdateRe.FindStringIndex(s[start:]); m != nil && (start == 0 || !refisDigit(s[start-1])) {
		*ts = append(*ts, reftok{kind: reftVar, glued: !space, off: start, end: start + m[1]})
		return start + m[1]
	}
	v, _ := new(big.Rat).SetString(strings.ReplaceAll(s[start:i], ",", ""))
	t := reftok{kind: reftNum, val: v, dec: dec, glued: !space, off: start, end: i}
	if i < len(s) && s[i] == '%' {
		refmarkPct(&t, i+1)
		i++
	}
	if i < len(s) && refisLetter(s[i]) {
		j := i
		for j < len(s) && refisLetter(s[j]) {
			j++
		}
		switch {
		case (s[i] == 'x' || s[i] == 'X') && j == i+1 && j < len(s) && refisDigit(s[j]):
			*ts = append(*ts, t, reftok{kind: reftOp, op: '*', glued: true, off: i, end: j})
			return j
		case j-i == 1 || j < len(s) && (refisDigit(s[j]) || s[j] == '_' || s[j] == '^'):
			t = reftok{kind: reftVar, word: strings.ToLower(s[start:j]), glued: !space, off: start, end: j}
			*ts = append(*ts, t)
			return j
		}
	}
	*ts = append(*ts, t)
	return i
}

func refmarkPct(t *reftok, end int) {
	t.pct = true
	t.val = new(big.Rat).Quo(t.val, big.NewRat(100, 1))
	t.end = end
}

func refisDigit(c byte) bool  { return c >= '0' && c <= '9' }
func refisLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func refstartsLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}
