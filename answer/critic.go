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
type Arith struct {
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
// AgentState.Confidence with when asked (replay.WithCritic). On
// arithmetic questions, whose text usually restates the expression, it
// amounts to a calculator of the question.
//
// Its cost is bounded whatever the text: it checks the last
// MaxCriticBytes, fails an expression whose value passes maxPowerBits
// (4,096 bits, or a number of more than 1,228 characters), so that a
// chain "7/7/7/…" costs a bounded amount per step, and its tokens take 32
// bytes each: 1 MB of "1=" allocates under 5 MB.
func Critic(kind Kind, text string) (conf float64, ok bool) {
	switch kind {
	case GSM8K, Arithmetic, Math:
	default:
		return 0, false
	}
	a := CheckArithmetic(kind, text)
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
func CheckArithmetic(kind Kind, text string) Arith {
	var a Arith
	ts, src := tokenize(tail(text, MaxCriticBytes))
	if len(ts) == 0 {
		return a
	}
	// Expressions come in order, each starting at or after the end of the
	// one before; an equation is two of them either side of one "=", so
	// each is checked when its right side is found, holding one expression.
	var prev expr
	hasPrev := false
	final := ""
	seen := map[string]bool{}
	for i := 0; i < len(ts); {
		if !operandStart(ts, i) {
			i++
			continue
		}
		p := parser{ts: ts, src: src, i: i}
		v, ok := p.expr()
		work(p.i - i + 1) // the tokens this parse visited
		if !ok && ts[i].kind == tLParen && !p.big {
			i++ // "(so 3 + 4 = 7)": the parenthesis is prose
			continue
		}
		e := expr{s: i, e: p.i, val: v, ops: p.ops, pct: p.pct, units: p.units, ok: ok && context(ts, i, p.i)}
		if e.ok && e.ops == 0 {
			e.single = v
			for _, t := range ts[i:p.i] {
				if t.kind == tNum {
					e.dec, e.written = int(t.dec), v
					if t.pct {
						e.dec += 2
						e.written = new(big.Rat).Mul(v, big.NewRat(100, 1))
					}
					break
				}
			}
		}
		if hasPrev && prev.e+1 == e.s && ts[prev.e].kind == tEq {
			checkEquation(&a, kind, text, ts, src, prev, e, &final, seen)
		}
		prev, hasPrev = e, true
		i = max(p.i, i+1)
	}
	return a
}

// checkEquation checks the equation l = r and counts it in a.
func checkEquation(a *Arith, kind Kind, text string, ts []tok, src string, l, r expr, final *string, seen map[string]bool) {
	if !l.ok || !r.ok || l.ops+r.ops == 0 {
		return
	}
	if l.ops == 0 && (l.units || l.s > 0 && ts[l.s-1].kind == tWord) {
		return // "2 hours = 2 * 60", "Step 1 = 3 * 4": a label or a quantity, not a value
	}
	work(ts[r.e-1].end - ts[l.s].off)
	lt, rt := squeeze(src[ts[l.s].off:ts[l.e-1].end]), squeeze(src[ts[r.s].off:ts[r.e-1].end])
	if lt == rt || seen[lt+"="+rt] {
		return
	}
	seen[lt+"="+rt] = true
	a.Equations++
	held := agree(l, r)
	if held {
		a.Held++
	}
	if r.single == nil {
		return
	}
	if *final == "" {
		*final = Extract(kind, text, Options{})
		if *final == "" {
			*final = "\x00" // no answer: nothing matches
		}
	}
	if stated := canonical(r.written); stated == *final {
		if held {
			a.AnswerHeld = true
		} else {
			a.AnswerFailed = true
		}
	}
}

// squeeze drops the spaces of s, so that "3 * 4" and "3*4" are one
// equation.
func squeeze(s string) string {
	return strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return -1
		}
		return r
	}, s)
}

// expr is one arithmetic expression found in the tokens: ts[s:e].
type expr struct {
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
func agree(l, r expr) bool {
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
func context(ts []tok, s, e int) bool {
	if s > 0 {
		switch ts[s-1].kind {
		case tOp, tVar, tNum, tRParen:
			return false
		case tWord:
			if ts[s].kind == tOp {
				return false
			}
		}
	}
	if e < len(ts) {
		switch ts[e].kind {
		case tOp, tVar, tLParen:
			return false
		case tNum:
			return ts[e-1].kind == tWord // "5 and 3 * 4": a new expression after the unit words
		}
	}
	return true
}

// operandStart reports whether an operand starts at ts[i]: a number, "(",
// or a minus before one of them.
func operandStart(ts []tok, i int) bool {
	if i >= len(ts) {
		return false
	}
	switch ts[i].kind {
	case tNum, tLParen:
		return true
	case tOp:
		return ts[i].op == '-' && i+1 < len(ts) && (ts[i+1].kind == tNum || ts[i+1].kind == tLParen)
	}
	return false
}

// maxExponent and maxPowerBits bound the powers computed exactly, so that
// "((10^64)^64)^64" costs nothing; maxPowerBits also bounds every value
// the parser computes (numerator and denominator), so that a chain
// "7/7/7/…" or "9*9*9*…" costs a bounded amount per operation: an
// expression whose value grows past it is no arithmetic a text states.
const (
	maxExponent  = 64
	maxPowerBits = 1 << 12
)

// parser evaluates an expression: + and − of terms of × and ÷ (also
// implied: "x", "times", "of" after a percentage, "2(3)") of powers.
type parser struct {
	ts    []tok
	src   string // the text the tokens index
	i     int
	ops   int
	pct   bool
	units bool
	depth int  // parentheses open
	big   bool // failed on a value past maxPowerBits: skipped, not parsed again from the next token
}

// maxDepth bounds the nesting of parentheses: deeper is no arithmetic a
// text states, and the bound keeps a run of "(" from costing a parse each.
const maxDepth = 8

func (p *parser) at(kind tokKind, op byte) bool {
	return p.i < len(p.ts) && p.ts[p.i].kind == kind && (kind != tOp || p.ts[p.i].op == op)
}

func (p *parser) expr() (*big.Rat, bool) {
	v, ok := p.term()
	for ok && (p.at(tOp, '+') || p.at(tOp, '-')) {
		op := p.ts[p.i].op
		if !operandStart(p.ts, p.i+1) {
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
			if !small(v) {
				p.big = true
				return nil, false
			}
		}
	}
	return v, ok
}

// mulWord reports whether ts[i] is a word that multiplies when an operand
// follows: "x", "times", and "of" after a percentage ("20% of 50").
func (p *parser) mulWord(i int, afterPct bool) bool {
	t := &p.ts[i]
	if t.kind != tWord && t.kind != tVar {
		return false
	}
	w := p.word(t)
	return (w == "x" || w == "times" || afterPct && w == "of") && operandStart(p.ts, i+1)
}

// word is the text of a word token as mulWord compares it: a LaTeX
// command's name, or the word lower-cased when it is ASCII (lowering
// makes no other word "x", "times" or "of"). A token keeps no copy.
func (p *parser) word(t *tok) string {
	w := p.src[t.off:t.end]
	if strings.HasPrefix(w, `\`) {
		return w[1:]
	}
	if len(w) > len("times") {
		return ""
	}
	var b [len("times")]byte
	for i := 0; i < len(w); i++ {
		b[i] = lower(w[i])
	}
	return string(b[:len(w)])
}

func (p *parser) term() (*big.Rat, bool) {
	v, ok := p.unary()
	for ok && p.i < len(p.ts) {
		t := &p.ts[p.i]
		var op byte
		switch {
		case t.kind == tOp && (t.op == '*' || t.op == '/'):
			op = t.op
			if !operandStart(p.ts, p.i+1) {
				return nil, false
			}
			p.i++
		case p.mulWord(p.i, p.lastPct()):
			op = '*'
			p.i++
		case t.kind == tLParen && t.glued:
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
		if !small(v) {
			p.big = true
			return nil, false
		}
	}
	return v, ok
}

// lastPct reports whether the token before the current one (past any unit
// words) is a percentage.
func (p *parser) lastPct() bool {
	return p.i > 0 && p.ts[p.i-1].kind == tNum && p.ts[p.i-1].pct
}

// unary is a minus before a power: -2^2 is -(2^2).
func (p *parser) unary() (*big.Rat, bool) {
	if p.at(tOp, '-') {
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
func (p *parser) power() (*big.Rat, bool) {
	b, ok := p.primary()
	if !ok || !p.at(tOp, '^') {
		return b, ok
	}
	if !operandStart(p.ts, p.i+1) {
		return nil, false
	}
	p.i++
	e, ok := p.unary()
	if !ok || !e.IsInt() || !e.Num().IsInt64() {
		return nil, false
	}
	n := e.Num().Int64()
	if n > maxExponent || n < -maxExponent || b.Sign() == 0 && n < 0 ||
		int64(max(b.Num().BitLen(), b.Denom().BitLen()))*abs(n) > maxPowerBits {
		return nil, false
	}
	p.ops++
	num := new(big.Int).Exp(b.Num(), big.NewInt(abs(n)), nil)
	den := new(big.Int).Exp(b.Denom(), big.NewInt(abs(n)), nil)
	if n < 0 {
		num, den = den, num
	}
	return new(big.Rat).SetFrac(num, den), true
}

// small reports whether v is within maxPowerBits.
func small(v *big.Rat) bool {
	return v.Num().BitLen() <= maxPowerBits && v.Denom().BitLen() <= maxPowerBits
}

// maxNumberBytes bounds the numbers the parser computes with: about
// maxPowerBits in decimal digits.
const maxNumberBytes = maxPowerBits * 3 / 10

func abs(n int64) int64 {
	if n < 0 {
		return -n
	}
	return n
}

func (p *parser) primary() (*big.Rat, bool) {
	if p.i >= len(p.ts) {
		return nil, false
	}
	t := &p.ts[p.i]
	switch t.kind {
	case tNum:
		if t.end-t.off > maxNumberBytes {
			p.big = true
			return nil, false
		}
		p.i++
		p.pct = p.pct || t.pct
		v := p.value(t)
		p.skipUnits()
		return v, true
	case tLParen:
		if p.depth == maxDepth {
			return nil, false
		}
		p.i++
		p.depth++
		v, ok := p.expr()
		p.depth--
		if !ok || !p.at(tRParen, 0) {
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
const maxUnitWords = 3

// skipUnits passes the unit words after an operand: up to maxUnitWords
// words of two letters or more, and "/" between two of them ("eggs/day"),
// but not a word that multiplies here ("x 28").
func (p *parser) skipUnits() {
	for n := 0; n < maxUnitWords && p.i < len(p.ts); {
		t := &p.ts[p.i]
		switch {
		case t.kind == tWord && !p.mulWord(p.i, p.lastPct()):
			p.i++
			n++
			p.units = true
		case t.kind == tOp && t.op == '/' && t.glued && n > 0 && p.i+1 < len(p.ts) && p.ts[p.i+1].kind == tWord && p.ts[p.i+1].glued:
			p.i++
		default:
			return
		}
	}
}

// Tokens of the arithmetic reader.
type tokKind uint8

const (
	tNum    tokKind = iota
	tOp             // + - * / ^
	tLParen         // ( [ {
	tRParen         // ) ] }
	tEq             // =
	tWord           // a word of two letters or more (prose or a unit), or "a", "I"
	tVar            // a variable: another single letter ("x" multiplies between numbers), a word with digits, an unknown LaTeX command
	tBreak          // what ends an expression: punctuation, a line end, ≈, <, ==, ...
)

type tok struct {
	off, end int   // bytes of the token in the read text (a word's text)
	dec      int32 // tNum: decimals as written (the text is at most MaxCriticBytes)
	kind     tokKind
	op       byte
	pct      bool // tNum: a percentage, whose value is the number / 100
	glued    bool // no space before it
	nl       bool // tBreak: a line end
}

// grow makes room for two more tokens, doubling (append grows a large
// slice by a quarter, which allocates five times the final size); a guard,
// since tokenize sizes the slice for a token a byte.
func grow(ts []tok) []tok {
	if len(ts)+2 <= cap(ts) {
		return ts
	}
	return append(make([]tok, 0, 2*cap(ts)+64), ts...)
}

var (
	// dateRe is a date: 2023-10-05, 12/25/2023. It is matched against
	// the 16 bytes at a number only (a date is 10 and the boundary after):
	// the backtracking matcher costs the length of what it is given.
	dateRe = regexp.MustCompile(`^(?:\d{4}-\d{1,2}-\d{1,2}|\d{1,2}/\d{1,2}/\d{4})\b`)
)

// writeQuotient writes a fraction for the parser: ((a)/(b)).
func writeQuotient(b *strings.Builder, num, den string) {
	b.WriteString("((")
	b.WriteString(num)
	b.WriteString(")/(")
	b.WriteString(den)
	b.WriteString("))")
}

// replaceShortFracs rewrites \frac12 (also \dfrac, \tfrac, spaces
// between) as ((1)/(2)), as the regular expression
// \\[dt]?frac\s*(\d)\s*(\d) would be replaced.
func replaceShortFracs(s string) string {
	return rewriteFracs(s, digitFracArgs, writeQuotient)
}

// digitFracArgs reads the two one-digit arguments (spaces around them) of
// a \frac whose name ends at s[k].
func digitFracArgs(s string, k int) (num, den string, end int, ok bool) {
	for k < len(s) && isSpaceRe(s[k]) {
		k++
	}
	if k >= len(s) || !isDigit(s[k]) {
		return "", "", 0, false
	}
	num = s[k : k+1]
	for k++; k < len(s) && isSpaceRe(s[k]); k++ {
	}
	if k >= len(s) || !isDigit(s[k]) {
		return "", "", 0, false
	}
	return num, s[k : k+1], k + 1, true
}

// textCommands are the LaTeX commands whose argument is prose, in the
// order they are tried.
var textCommands = []string{"text", "textbf", "textit", "mathrm", "mathbf", "mbox", "operatorname"}

// replaceTextCommands writes each \text{...} (and the other
// textCommands; no brace inside) as its words between spaces.
func replaceTextCommands(s string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			continue
		}
		for _, name := range textCommands {
			if !strings.HasPrefix(s[i+1:], name) {
				continue
			}
			arg, end, ok := braced(s, i+1+len(name))
			if !ok {
				continue
			}
			b.WriteString(s[last:i])
			b.WriteByte(' ')
			b.WriteString(arg)
			b.WriteByte(' ')
			last, i = end, end-1
			break
		}
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// laTeX rewrites the LaTeX of arithmetic into plain text: \frac{a}{b} is
// ((a)/(b)), \text{...} its words, \left and \right go.
func laTeX(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	for range 4 { // nested fractions, innermost first
		t := replaceFracs(s, writeQuotient)
		if t == s {
			break
		}
		s = t
	}
	s = replaceShortFracs(s)
	s = replaceTextCommands(s)
	return criticNoise.Replace(s)
}

// latexOps are the LaTeX commands read as operators or as a break; any
// other command is a variable.
var latexOps = map[string]byte{
	"times": '*', "cdot": '*', "ast": '*', "div": '/',
	"approx": 0, "neq": 0, "ne": 0, "le": 0, "leq": 0, "ge": 0, "geq": 0, "lt": 0, "gt": 0,
	"pm": 0, "mp": 0, "equiv": 0, "sim": 0, "quad": 0, "qquad": 0, "implies": 0, "Rightarrow": 0,
	"rightarrow": 0, "to": 0, "therefore": 0, "and": 0, "text": 0,
}

// tokenize reads text into arithmetic tokens, and returns the text they
// index (text with its LaTeX rewritten).
func tokenize(text string) ([]tok, string) {
	work(8 * len(text)) // laTeX's passes
	s := laTeX(text)
	work(len(s))
	// Each token takes a byte at least: one allocation, as large as the
	// read text's tokens can be, costs less than growing (32 bytes a byte,
	// and the text is at most MaxCriticBytes).
	z := tokenizer{s: s, ts: make([]tok, 0, len(s)+2), space: true}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			z.emit(tok{kind: tBreak, nl: true, off: i, end: i + 1})
			z.space = true
			i++
		case c == ' ' || c == '\t' || c == '\r' || c == '$':
			z.space = true
			i++
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			i = readNumber(s, i, &z.ts, z.space)
			z.space = false
		case c == '\\':
			i = z.command(i)
		case isLetter(c) || c >= utf8.RuneSelf && startsLetter(s[i:]):
			i = z.word(i)
		default:
			i = z.symbol(i)
		}
	}
	return joinLines(z.ts), s
}

// tokenizer is tokenize's state: the text, the tokens so far, and whether
// a space (or the start) comes before the next token.
type tokenizer struct {
	s     string
	ts    []tok
	space bool
}

// emit appends t, glued to the token before unless a space came between.
func (z *tokenizer) emit(t tok) {
	t.glued = !z.space
	z.ts = append(grow(z.ts), t)
	z.space = false
}

// lineStart reports whether the next token starts a line.
func (z *tokenizer) lineStart() bool {
	ts := z.ts
	return len(ts) == 0 || ts[len(ts)-1].kind == tBreak && ts[len(ts)-1].nl
}

// command reads the LaTeX command at s[i] = '\\' and returns the index
// after it: an operator, a break or a variable (latexOps), a percent sign
// marking the number before, or spacing and delimiters.
func (z *tokenizer) command(i int) int {
	s := z.s
	j := i + 1
	for j < len(s) && isLetter(s[j]) {
		j++
	}
	name := s[i+1 : j]
	switch {
	case name == "" && j < len(s) && s[j] == '%':
		if n := len(z.ts); n > 0 && z.ts[n-1].kind == tNum && !z.ts[n-1].pct && z.ts[n-1].end == i {
			markPct(&z.ts[n-1], j+1)
		}
		j++
	case name == "":
		j = min(j+1, len(s)) // \, \; \! \$ \( \[ ...: spacing and delimiters
	default:
		if op, ok := latexOps[name]; ok {
			if op != 0 {
				z.emit(tok{kind: tOp, op: op, off: i, end: j})
			} else {
				z.emit(tok{kind: tBreak, off: i, end: j})
			}
		} else {
			z.emit(tok{kind: tVar, off: i, end: j})
		}
	}
	z.space = true
	return j
}

// word reads the word starting at s[i], a letter, and returns the index
// after it: a variable when it holds digits or '_', is one letter other
// than "a" and "I", or has an exponent; else a word.
func (z *tokenizer) word(i int) int {
	s := z.s
	j := i
	digits := false
	for j < len(s) {
		if isLetter(s[j]) || s[j] == '\'' {
			j++
		} else if isDigit(s[j]) || s[j] == '_' {
			digits = true
			j++
		} else if s[j] >= utf8.RuneSelf && startsLetter(s[j:]) {
			_, w := utf8.DecodeRuneInString(s[j:])
			j += w
		} else {
			break
		}
	}
	w := s[i:j]
	if !isASCII(w) {
		w = strings.ToLower(w) // only its length and "a", "i" count here
	}
	kind := tWord
	if digits || len(w) == 1 && w != "a" && w != "i" && w != "A" && w != "I" || j < len(s) && s[j] == '^' {
		kind = tVar
	}
	z.emit(tok{kind: kind, off: i, end: j})
	return j
}

// symbol reads the character at s[i] and returns the index after it: an
// operator (or a bullet, or markdown bold, skipped), an equals sign (or a
// break: "==", "=>", "<=", "!="...), a parenthesis, or a break.
func (z *tokenizer) symbol(i int) int {
	s := z.s
	r, w := utf8.DecodeRuneInString(s[i:])
	t := tok{kind: tBreak, off: i, end: i + w}
	switch r {
	case '+', '-', '−', '*', '×', '·', '⋅', '/', '÷', '^':
		t.kind, t.op = tOp, opOf(r)
		if r == '*' && i+1 < len(s) && s[i+1] == '*' { // markdown bold
			for i < len(s) && s[i] == '*' {
				i++
			}
			z.space = true
			return i
		}
		if (t.op == '*' || t.op == '-' || t.op == '+') && z.lineStart() && i+w < len(s) && s[i+w] == ' ' {
			t.kind = tBreak // a bullet
		}
	case '=':
		t.kind = tEq
		if i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '>') {
			t.kind, t.end = tBreak, i+2
		} else if n := len(z.ts); n > 0 && z.ts[n-1].end == i && z.ts[n-1].kind == tBreak && strings.ContainsAny(s[z.ts[n-1].off:i], "<>!:") {
			t.kind = tBreak
		}
	case '(', '[', '{':
		t.kind = tLParen
	case ')', ']', '}':
		t.kind = tRParen
	}
	z.emit(t)
	return t.end
}

// joinLines drops the line ends that do not end an expression: before a
// line starting with "=", and after a line ending with "=" or an operator.
func joinLines(ts []tok) []tok {
	out := ts[:0]
	for i := 0; i < len(ts); {
		if t := ts[i]; !(t.kind == tBreak && t.nl) {
			out = append(out, t)
			i++
			continue
		}
		j := i + 1 // past the run of line ends, found once for all of it
		for j < len(ts) && ts[j].kind == tBreak && ts[j].nl {
			j++
		}
		next := j < len(ts) && ts[j].kind == tEq
		for ; i < j; i++ {
			prev := len(out) > 0 && (out[len(out)-1].kind == tEq || out[len(out)-1].kind == tOp)
			if !next && !prev {
				out = append(out, ts[i])
			}
		}
	}
	return out
}

func opOf(r rune) byte {
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
func readNumber(s string, i int, ts *[]tok, space bool) int {
	*ts = grow(*ts)
	start := i
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	if i-start <= 3 && i > start {
		for i+3 < len(s) && s[i] == ',' && isDigit(s[i+1]) && isDigit(s[i+2]) && isDigit(s[i+3]) && (i+4 == len(s) || !isDigit(s[i+4])) {
			i += 4
		}
	}
	dec := 0
	if i+1 < len(s) && s[i] == '.' && isDigit(s[i+1]) {
		i++
		for i < len(s) && isDigit(s[i]) {
			i++
			dec++
		}
	}
	if start > 1 && s[start-1] == ':' && isDigit(s[start-2]) || i+1 < len(s) && s[i] == ':' && isDigit(s[i+1]) {
		// a time of day ("5:00pm") or a ratio ("3:2"): no quantity to compute with
		*ts = append(*ts, tok{kind: tVar, glued: !space, off: start, end: i})
		return i
	}
	if m := dateRe.FindStringIndex(s[start:min(len(s), start+16)]); m != nil && (start == 0 || !isDigit(s[start-1])) {
		*ts = append(*ts, tok{kind: tVar, glued: !space, off: start, end: start + m[1]})
		return start + m[1]
	}
	t := tok{kind: tNum, dec: int32(dec), glued: !space, off: start, end: i}
	if i < len(s) && s[i] == '%' {
		markPct(&t, i+1)
		i++
	}
	if i < len(s) && isLetter(s[i]) {
		j := i
		for j < len(s) && isLetter(s[j]) {
			j++
		}
		switch {
		case (s[i] == 'x' || s[i] == 'X') && j == i+1 && j < len(s) && isDigit(s[j]):
			*ts = append(*ts, t, tok{kind: tOp, op: '*', glued: true, off: i, end: j})
			return j
		case j-i == 1 || j < len(s) && (isDigit(s[j]) || s[j] == '_' || s[j] == '^'):
			t = tok{kind: tVar, glued: !space, off: start, end: j}
			*ts = append(*ts, t)
			return j
		}
	}
	*ts = append(*ts, t)
	return i
}

// value is the value of the number token t, read from its text when the
// parser needs it (a token holds no value: a text of numbers costs no
// allocation until they are computed with).
func (p *parser) value(t *tok) *big.Rat {
	lit := p.src[t.off:t.end]
	if t.pct {
		lit = strings.TrimSuffix(strings.TrimSuffix(lit, "%"), `\`)
	}
	var v *big.Rat
	if n, ok := smallInt(lit); ok {
		v = new(big.Rat).SetInt64(n) // most numbers: no parse, no reader
	} else {
		v, _ = new(big.Rat).SetString(strings.ReplaceAll(lit, ",", ""))
	}
	if t.pct {
		v.Quo(v, big.NewRat(100, 1))
	}
	return v
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// smallInt reads a run of at most 18 digits.
func smallInt(s string) (int64, bool) {
	if s == "" || len(s) > 18 {
		return 0, false
	}
	var n int64
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = 10*n + int64(s[i]-'0')
	}
	return n, true
}

func markPct(t *tok, end int) {
	t.pct = true
	t.end = end
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

func startsLetter(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsLetter(r)
}

// criticNoise drops sizing and boxes before the critic reads an
// expression; built once, not per expression.
var criticNoise = strings.NewReplacer(`\left`, "", `\right`, "", `\boxed`, " ", `\fbox`, " ", `{,}`, ",")
