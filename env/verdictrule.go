package env

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// The decision rule of a verdict (design §9.1), on rows whose every pair
// has its paired difference (pairs[a][b] is a − b):
//
//  1. A row is dominated when another is as accurate or more at fewer
//     tokens per task, or more accurate at no more (point estimates, the
//     ones the table shows). Of two rows equal in both, a baseline
//     dominates a learned policy (it needs no training), else the first
//     listed the later. A dominated row is never recommended.
//  2. Of the rows left (the frontier), cheapest first, the verdict uses the
//     first that no other frontier row beats, established, in net points at
//     the user's price λ: 100·accuracy − λ·tokens/10, whose paired interval
//     must lie above 0. A difference whose interval holds 0 is "not
//     established": the cheaper row stands. (The row of highest net
//     estimate is beaten by none, so there always is one.)
//
// A learned policy that plays exactly as a baseline (the same outcome on
// every task, the same tokens) is said to, and is dominated by it; the use
// is then the cheapest row no other beats, as for any other row.
type decision struct {
	use       int
	dominator []int // per row: the row that dominates it, or −1
	sentence  string
}

// Tolerances of "equal": accuracies are shares of the same counts, tokens
// per task means of integers.
const (
	accTol = 1e-9
	tokTol = 0.5
)

func decide(rows []VerdictRow, pairs [][]pairStat, lambda float64) decision {
	n := len(rows)
	d := decision{dominator: make([]int, n)}
	for i := range rows {
		d.dominator[i] = -1
		for j := range rows {
			if j == i || !dominates(rows, j, i) {
				continue
			}
			// The cheapest dominator, then the most accurate: the one a
			// reader would take instead.
			if k := d.dominator[i]; k < 0 || rows[j].TokensPerTask < rows[k].TokensPerTask ||
				rows[j].TokensPerTask == rows[k].TokensPerTask && rows[j].Accuracy > rows[k].Accuracy {
				d.dominator[i] = j
			}
		}
	}
	var front []int
	for i := range rows {
		if d.dominator[i] < 0 {
			front = append(front, i)
		}
	}
	slices.SortStableFunc(front, func(a, b int) int {
		switch {
		case rows[a].TokensPerTask < rows[b].TokensPerTask:
			return -1
		case rows[a].TokensPerTask > rows[b].TokensPerTask:
			return 1
		}
		return 0
	})
	beats := func(a, b int) bool { p := pairs[a][b].net; return p.Low > 0 && p.Estimate > 0 }
	d.use = front[len(front)-1]
	for _, c := range front {
		if !slices.ContainsFunc(front, func(o int) bool { return beats(o, c) }) {
			d.use = c
			break
		}
	}
	d.sentence = explain(rows, pairs, lambda, d, front, beats)
	return d
}

// dominates says whether row j dominates row i (rule 1).
func dominates(rows []VerdictRow, j, i int) bool {
	a, b := rows[j], rows[i]
	accGE, accGT := a.Accuracy >= b.Accuracy-accTol, a.Accuracy > b.Accuracy+accTol
	tokLE, tokLT := a.TokensPerTask <= b.TokensPerTask+tokTol, a.TokensPerTask < b.TokensPerTask-tokTol
	if accGE && tokLE && !accGT && !tokLT { // equal in both
		return !a.Learned && b.Learned || a.Learned == b.Learned && j < i
	}
	return accGE && tokLT || accGT && tokLE
}

// playsAs reports whether a learned row plays exactly as another: the same
// outcome on every task (paired accuracy 0 [0, 0]) and the same tokens.
func playsAs(p pairStat) bool {
	return p.acc.Low == 0 && p.acc.High == 0 && math.Abs(p.tok.Estimate) < tokTol &&
		math.Abs(p.tok.Low) < tokTol && math.Abs(p.tok.High) < tokTol
}

// explain writes the verdict's sentence: what to use, then why, each
// difference with its interval and whether it is established.
func explain(rows []VerdictRow, pairs [][]pairStat, lambda float64, d decision, front []int, beats func(a, b int) bool) string {
	x := &explainer{rows: rows, pairs: pairs, lambda: lambda, netUnit: "points"}
	for _, r := range rows {
		if r.Learned {
			x.learned++
		}
	}
	if lambda != 0 {
		x.netUnit = "net points"
	}
	u := d.use
	x.said = map[int]bool{u: true}
	as := x.playingAs()
	x.dominated(d, u, as)
	at := slices.Index(front, u)
	x.cheaper(front[:at], front, u, beats)
	x.dearer(front[at+1:], u)
	// A learned policy on the frontier the sentence has not named yet.
	for _, l := range front {
		if rows[l].Learned && !x.said[l] {
			x.why = append(x.why, x.diff(l, u, true))
		}
	}
	return fmt.Sprintf("use %s: %s.", x.name(u), strings.Join(x.why, "; "))
}

// explainer builds the verdict's sentence: its clauses (why) and the rows
// they have named (said).
type explainer struct {
	rows    []VerdictRow
	pairs   [][]pairStat
	lambda  float64
	learned int    // learned rows
	netUnit string // of a difference net of tokens
	why     []string
	said    map[int]bool
}

// name is row i's name in the sentence: "this policy" for the one learned
// row.
func (x *explainer) name(i int) string {
	if x.rows[i].Learned && x.learned == 1 {
		return "this policy"
	}
	return x.rows[i].Policy
}

// diff is "a − b" in accuracy (or net of tokens), its interval and
// whether it is established.
func (x *explainer) diff(a, b int, net bool) string {
	p, unit := x.pairs[a][b].acc, "points"
	if net {
		p, unit = x.pairs[a][b].net, x.netUnit
	}
	how := "not established"
	if p.Low > 0 || p.High < 0 {
		how = "established"
	}
	return fmt.Sprintf("%s − %s: %s %s [%s, %s], %s", x.name(a), x.name(b), signed(p.Estimate), unit, signed(p.Low), signed(p.High), how)
}

func (x *explainer) tokens(a, b int) string {
	return fmt.Sprintf("%.0f vs %.0f tokens per task", x.rows[a].TokensPerTask, x.rows[b].TokensPerTask)
}

// playingAs says each learned policy that is a baseline in all but name,
// and returns the baseline each plays as.
func (x *explainer) playingAs() map[int]int {
	as := map[int]int{} // learned row → the baseline it plays as
	for l := range x.rows {
		if !x.rows[l].Learned {
			continue
		}
		for b := range x.rows {
			if !x.rows[b].Learned && playsAs(x.pairs[l][b]) {
				x.why = append(x.why, fmt.Sprintf("%s plays as %s does (the same outcome on every question, the same tokens)", x.name(l), x.rows[b].Policy))
				x.said[l], as[l] = true, b
				break
			}
		}
	}
	return as
}

// dominated says the learned policies the rule did not pick, dominated:
// by whom (one clause per dominator).
func (x *explainer) dominated(d decision, u int, as map[int]int) {
	var by []int
	of := map[int][]string{}
	for l := range x.rows {
		k := d.dominator[l]
		if b, ok := as[l]; !x.rows[l].Learned || l == u || k < 0 || ok && k == b {
			continue
		}
		if of[k] == nil {
			by = append(by, k)
		}
		of[k] = append(of[k], fmt.Sprintf("%s; %s", x.diff(k, l, false), x.tokens(k, l)))
		x.said[l], x.said[k] = true, true
	}
	for _, k := range by {
		x.why = append(x.why, fmt.Sprintf("%s is as accurate or more at fewer tokens (%s)", x.name(k), strings.Join(of[k], "; ")))
	}
}

// cheaper says the frontier rows cheaper than u: each beaten, established,
// by some row of the frontier.
func (x *explainer) cheaper(cheap, front []int, u int, beats func(a, b int) bool) {
	for _, c := range cheap {
		b := u
		if !beats(u, c) {
			for _, o := range front {
				if beats(o, c) && (b == u || x.pairs[o][c].net.Estimate > x.pairs[b][c].net.Estimate) {
					b = o
				}
			}
		}
		subj := "it"
		if b != u {
			subj = x.name(b)
		}
		x.why = append(x.why, fmt.Sprintf("%s beats %s (%s; %s)", subj, x.name(c), x.diff(b, c, true), x.tokens(b, c)))
		x.said[c] = true
	}
}

// dearer says that none of the frontier rows dearer than u beats it, the
// closest named.
func (x *explainer) dearer(dear []int, u int) {
	r := -1
	for _, o := range dear {
		if r < 0 || x.pairs[o][u].net.Estimate > x.pairs[r][u].net.Estimate {
			r = o
		}
	}
	better := "more accurate"
	if x.lambda != 0 {
		better = "better at this price"
	}
	switch {
	case r < 0:
		x.why = append(x.why, "no row is more accurate")
	case x.pairs[r][u].net.Estimate > 0:
		x.why = append(x.why, fmt.Sprintf("no row is shown %s (%s; %s)", better, x.diff(r, u, true), x.tokens(r, u)))
		x.said[r] = true
	default:
		x.why = append(x.why, fmt.Sprintf("%s is more accurate (%s) but not worth its tokens at this price (%s; %s)",
			x.name(r), x.diff(r, u, false), x.diff(r, u, true), x.tokens(r, u)))
		x.said[r] = true
	}
}

// signed writes x with its sign and one decimal, 0 as +0.0 whatever the
// sign of a difference that rounds to it.
func signed(x float64) string {
	if math.Abs(x) < 0.05 {
		x = 0
	}
	return fmt.Sprintf("%+.1f", x)
}
