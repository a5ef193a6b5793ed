package env

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// verdictResult makes a Result over n tasks: correct[i] says whether task i
// was right (one episode each), tokens its tokens.
func verdictResult(name string, correct []bool, tokens int64) Result {
	r := Result{Policy: name, Episodes: len(correct), Tasks: len(correct), Scored: len(correct), TokensPerTask: float64(tokens)}
	for i, c := range correct {
		k := 0
		if c {
			k = 1
			r.Correct++
		}
		r.ByTask = append(r.ByTask, TaskOutcome{Task: fmt.Sprint(i), Episodes: 1, Scored: 1, Correct: k, Tokens: tokens})
	}
	r.Accuracy = float64(r.Correct) / float64(len(correct))
	return r
}

// pattern is n tasks of which those with (i+shift)%m < k are correct.
func pattern(n, m, k int) []bool { return shifted(n, m, k, 0) }

func shifted(n, m, k, shift int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = (i+shift)%m < k
	}
	return out
}

// plus is c with the first extra wrong tasks made right.
func plus(c []bool, extra int) []bool {
	out := append([]bool(nil), c...)
	for i := range out {
		if extra > 0 && !out[i] {
			out[i], extra = true, extra-1
		}
	}
	return out
}

// verdictCase is one table of results, what Judge must say to use, and
// what its sentence must and must not say.
type verdictCase struct {
	name   string
	rs     Results
	o      JudgeOptions
	use    string
	says   []string
	absent []string
}

// verdictCases are TestVerdictRule's cases.
var verdictCases = []verdictCase{{
	// Issue 33's first: the policy plays as gate, and majority is as
	// accurate (on other questions) for fewer tokens: majority, not gate.
	name: "dominated",
	rs: Results{
		verdictResult("mpdf", pattern(200, 10, 7), 2295),
		verdictResult("majority", shifted(200, 10, 7, 3), 897),
		verdictResult("debate", pattern(200, 10, 7), 4000),
		verdictResult("gate", pattern(200, 10, 7), 2295),
	},
	use: "majority",
	says: []string{"use majority: this policy plays as gate does", "majority is as accurate or more at fewer tokens (majority − this policy: +0.0 points [",
		"], not established; 897 vs 2295 tokens per task)", "no row is more accurate"},
	absent: []string{"use gate"},
}, {
	// Equivalent rows: the policy plays as gate, until-consensus has
	// gate's outcomes for fewer tokens: the cheapest of them.
	name: "equivalent",
	rs: Results{
		verdictResult("mpdf", pattern(200, 10, 8), 2000),
		verdictResult("majority", pattern(200, 10, 5), 900),
		verdictResult("gate", pattern(200, 10, 8), 2000),
		verdictResult("until-consensus", pattern(200, 10, 8), 1500),
	},
	use:  "until-consensus",
	says: []string{"use until-consensus: this policy plays as gate does", "it beats majority (until-consensus − majority: +30.0 points [", "], established; 1500 vs 900"},
}, {
	// Issue 33's second: +2 points over majority with an interval
	// that touches 0 is not established: majority, and said so.
	name: "wide-interval",
	rs: Results{
		verdictResult("mpdf", plus(pattern(100, 10, 6), 2), 2002),
		verdictResult("majority", pattern(100, 10, 6), 712),
	},
	use:    "majority",
	says:   []string{"use majority: no row is shown more accurate (this policy − majority: +2.0 points [+0.0, +", "], not established; 2002 vs 712 tokens per task)"},
	absent: []string{"as accurate as"},
}, {
	// A trade-off at λ = 0: ten points, established, are worth any
	// tokens.
	name: "trade-off λ 0",
	rs: Results{
		verdictResult("mpdf", pattern(300, 10, 8), 3000),
		verdictResult("majority", pattern(300, 10, 7), 1000),
	},
	use:  "mpdf",
	says: []string{"use this policy: it beats majority (this policy − majority: +10.0 points [", "], established; 3000 vs 1000", "no row is more accurate"},
}, {
	// The same at λ 0.1 (10 points per 1,000 tokens): 2,000 more
	// tokens cost 20 points, more than the 10 gained.
	name: "trade-off λ 0.1",
	rs: Results{
		verdictResult("mpdf", pattern(300, 10, 8), 3000),
		verdictResult("majority", pattern(300, 10, 7), 1000),
	},
	o:    JudgeOptions{Lambda: 0.1},
	use:  "majority",
	says: []string{"use majority: this policy is more accurate (this policy − majority: +10.0 points [", "but not worth its tokens at this price (this policy − majority: -10.0 net points ["},
}, {
	// The policy more accurate than every baseline, and cheaper than
	// all but majority, which it beats.
	name: "learned-wins",
	rs: Results{
		verdictResult("mpdf", pattern(300, 10, 9), 1200),
		verdictResult("majority", pattern(300, 10, 6), 1000),
		verdictResult("debate", pattern(300, 10, 8), 5000),
		verdictResult("gate", pattern(300, 10, 7), 2000),
	},
	use:  "mpdf",
	says: []string{"use this policy: it beats majority (this policy − majority: +30.0 points [", "no row is more accurate"},
}, {
	// A chain: threshold beats majority, the policy's edge over
	// threshold is not established: threshold (the simulator's case).
	name: "established then not",
	rs: Results{
		verdictResult("mpdf", plus(pattern(300, 10, 8), 2), 9336),
		verdictResult("majority", pattern(300, 10, 6), 993),
		verdictResult("gate", pattern(300, 10, 7), 7881),
		verdictResult("threshold", pattern(300, 10, 8), 3841),
	},
	o:    JudgeOptions{Confidence: true},
	use:  "threshold",
	says: []string{"use threshold: it beats majority (threshold − majority: +20.0 points [", "no row is shown more accurate (this policy − threshold: +0.7 points ["},
}}

// The decision rule (design §9.1) on constructed results: each case says
// what must be used and what the sentence must say.
func TestVerdictRule(t *testing.T) {
	for _, c := range verdictCases {
		t.Run(c.name, func(t *testing.T) {
			v, err := Judge(c.rs, "mpdf", c.o)
			if err != nil {
				t.Fatal(err)
			}
			if v.Use != c.use {
				t.Errorf("use %s, want %s: %s", v.Use, c.use, v.Sentence)
			}
			for _, s := range c.says {
				if !strings.Contains(v.Sentence, s) {
					t.Errorf("sentence %q\nlacks %q", v.Sentence, s)
				}
			}
			for _, s := range c.absent {
				if strings.Contains(v.Sentence, s) {
					t.Errorf("sentence %q\nsays %q", v.Sentence, s)
				}
			}
			checkUndominated(t, v)
		})
	}
}

// checkUndominated: the row used is one no other row of the table
// dominates (as accurate or more at fewer tokens, or more accurate at no
// more), the first must-hold, checked from the table's numbers.
func checkUndominated(t *testing.T, v *Verdict) {
	t.Helper()
	var use *VerdictRow
	for i := range v.Rows {
		if v.Rows[i].Policy == v.Use {
			use = &v.Rows[i]
		}
	}
	if use == nil || !use.Frontier {
		t.Fatalf("use %s: not a frontier row of %+v", v.Use, v.Rows)
	}
	for _, r := range v.Rows {
		if r.Accuracy >= use.Accuracy && r.TokensPerTask < use.TokensPerTask-tokTol ||
			r.Accuracy > use.Accuracy+accTol && r.TokensPerTask <= use.TokensPerTask {
			t.Fatalf("use %s (%.3f at %.0f), dominated by %s (%.3f at %.0f): %s", v.Use, use.Accuracy, use.TokensPerTask,
				r.Policy, r.Accuracy, r.TokensPerTask, v.Sentence)
		}
	}
}

// On random results at random prices, the verdict never uses a dominated
// row, and its sentence cites an interval with every difference.
func TestVerdictNeverDominated(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	names := []string{"mpdf", "majority", "debate", "gate", "until-consensus"}
	for k := range 300 {
		n := 20 + rng.IntN(60)
		var rs Results
		for _, name := range names {
			c := make([]bool, n)
			p := rng.Float64()
			for i := range c {
				c[i] = rng.Float64() < p
			}
			rs = append(rs, verdictResult(name, c, int64(500+rng.IntN(4)*500)))
		}
		if rng.IntN(4) == 0 { // a policy that is a baseline
			rs[0] = verdictResult("mpdf", nil, 0)
			rs[0] = rs[1+rng.IntN(4)]
			rs[0].Policy = "mpdf"
		}
		lambda := []float64{0, 0.001, 0.01, 0.1}[rng.IntN(4)]
		v, err := Judge(rs, "mpdf", JudgeOptions{Lambda: lambda})
		if err != nil {
			t.Fatal(err)
		}
		checkUndominated(t, v)
		if !strings.HasPrefix(v.Sentence, "use ") || strings.Count(v.Sentence, "[") != strings.Count(v.Sentence, "established") {
			t.Fatalf("case %d: %s", k, v.Sentence)
		}
	}
}

func TestJudgeTable(t *testing.T) {
	rs := Results{
		verdictResult("mpdf", pattern(200, 10, 7), 3000),
		verdictResult("majority", pattern(200, 10, 6), 1000),
		verdictResult("debate", pattern(200, 10, 7), 6000),
		verdictResult("gate", pattern(200, 10, 7), 2000),
		verdictResult("until-consensus", pattern(200, 10, 7), 2500),
		verdictResult("threshold", pattern(200, 10, 9), 500),
	}
	v, err := Judge(rs, "mpdf", JudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Rows) != 5 || v.Rows[0].Policy != "mpdf" {
		t.Fatalf("rows %+v: want mpdf then 4 baselines (no threshold without a confidence)", v.Rows)
	}
	front := map[string]bool{}
	for _, r := range v.Rows {
		front[r.Policy] = r.Frontier
	}
	if !front["majority"] || !front["gate"] || front["mpdf"] || front["debate"] || front["until-consensus"] {
		t.Fatalf("frontier %v: want majority and gate only", front)
	}
	if v.Rows[0].DominatedBy != "gate" {
		t.Errorf("mpdf dominated by %q, want gate (as accurate, cheaper)", v.Rows[0].DominatedBy)
	}
	if d := v.Rows[1].DeltaAccuracy; d.Estimate < 9.99 || d.Estimate > 10.01 || d.Low <= 0 {
		t.Fatalf("mpdf − majority %+v: want +10 points, interval above 0", d)
	}
	if d := v.Rows[3].DeltaAccuracy; d.Estimate != 0 || d.Low != 0 || d.High != 0 {
		t.Fatalf("mpdf − gate %+v: identical outcomes, want 0 [0, 0]", d)
	}
	if v.Use != "gate" {
		t.Fatalf("use %s: %s", v.Use, v.Sentence)
	}
	// With a confidence, threshold is judged too, and it is both more
	// accurate and cheaper than every row.
	if v, err = Judge(rs, "mpdf", JudgeOptions{Confidence: true, Play: PlayGreedy}); err != nil {
		t.Fatal(err)
	}
	if v.Use != "threshold" || !strings.Contains(v.Sentence, "no row is more accurate") {
		t.Fatalf("use %s: %s", v.Use, v.Sentence)
	}
	var b strings.Builder
	if err := v.WriteTable(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "(played greedy; Δ paired") || !strings.Contains(b.String(), "\nverdict (λ 0, accuracy alone): use threshold: ") {
		t.Errorf("table:\n%s", b.String())
	}
}

// JudgeAll picks among several learned policies and the baselines.
func TestJudgeAll(t *testing.T) {
	rs := Results{
		verdictResult("mpdf λ=0", pattern(300, 10, 9), 3000),
		verdictResult("mpdf λ=0.1", pattern(300, 10, 6), 1200),
		verdictResult("majority", pattern(300, 10, 6), 1000),
		verdictResult("gate", pattern(300, 10, 8), 2000),
	}
	v, err := JudgeAll(rs, []string{"mpdf λ=0", "mpdf λ=0.1"}, JudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v.Use != "mpdf λ=0" || !strings.Contains(v.Sentence, "use mpdf λ=0: ") || !strings.Contains(v.Sentence, "majority is as accurate or more at fewer tokens (majority − mpdf λ=0.1") {
		t.Fatalf("use %s: %s", v.Use, v.Sentence)
	}
	checkUndominated(t, v)
}

func TestJudgeRefusesUnpairedResults(t *testing.T) {
	rs := Results{verdictResult("mpdf", pattern(10, 2, 1), 100), verdictResult("majority", pattern(12, 2, 1), 100)}
	if _, err := Judge(rs, "mpdf", JudgeOptions{}); err == nil || !strings.Contains(err.Error(), "not paired") {
		t.Fatalf("err %v: want not paired", err)
	}
	if _, err := Judge(rs[:1], "mpdf", JudgeOptions{}); err == nil {
		t.Fatal("no baseline: want an error")
	}
	if _, err := Judge(rs, "other", JudgeOptions{}); err == nil {
		t.Fatal("unknown policy: want an error")
	}
	if _, err := Judge(Results{rs[0], verdictResult("majority", pattern(10, 2, 1), 100)}, "mpdf", JudgeOptions{Lambda: -1}); err == nil {
		t.Fatal("λ −1: want an error")
	}
}

// The paired estimate is the difference of the pooled accuracies, however
// many episodes each task has (a question debated in two files is one task
// id with two episodes).
func TestJudgePooledEstimate(t *testing.T) {
	mk := func(name string, correct [][2]int, tokens int64) Result {
		r := Result{Policy: name}
		for i, c := range correct {
			r.ByTask = append(r.ByTask, TaskOutcome{Task: fmt.Sprint(i), Episodes: c[1], Scored: c[1], Correct: c[0], Tokens: tokens * int64(c[1])})
			r.Episodes += c[1]
			r.Scored += c[1]
			r.Correct += c[0]
		}
		r.Accuracy = float64(r.Correct) / float64(r.Scored)
		r.TokensPerTask = float64(tokens)
		return r
	}
	// Task 0 has two episodes where the policies differ; tasks 1–3 one.
	l := mk("mpdf", [][2]int{{2, 2}, {1, 1}, {0, 1}, {1, 1}}, 1200)
	b := mk("majority", [][2]int{{0, 2}, {1, 1}, {0, 1}, {1, 1}}, 800)
	g := mk("gate", [][2]int{{2, 2}, {1, 1}, {1, 1}, {1, 1}}, 1000)
	v, err := Judge(Results{l, b, g}, "mpdf", JudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := 100 * (l.Accuracy - b.Accuracy)
	if d := v.Rows[1].DeltaAccuracy.Estimate; d < want-1e-9 || d > want+1e-9 {
		t.Errorf("mpdf − majority %.3f points, want the pooled difference %.3f", d, want)
	}
	if v.Tasks != 4 {
		t.Errorf("%d tasks paired, want 4", v.Tasks)
	}
	if v.Use != "majority" || v.Rows[0].DominatedBy != "gate" {
		t.Errorf("use %s (%s), want majority: gate dominates mpdf, and its edge over majority on 4 tasks is not established", v.Use, v.Sentence)
	}
}

// The net points at λ are accuracy points less λ·tokens/10, exactly.
func TestNetPoints(t *testing.T) {
	a := verdictResult("mpdf", pattern(100, 10, 8), 3000)
	b := verdictResult("majority", pattern(100, 10, 6), 1000)
	p, _, err := pairedDiff(&a, &b, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if want := 20 - 0.05*2000/10; p.net.Estimate < want-1e-9 || p.net.Estimate > want+1e-9 {
		t.Errorf("net %+v, want %.1f", p.net, want)
	}
}

// WriteVerdicts writes one table per learned policy it can judge, each
// after a blank line, and skips one without baselines.
func TestWriteVerdicts(t *testing.T) {
	rs := Results{
		verdictResult("mpdf", pattern(200, 10, 7), 3000),
		verdictResult("majority", pattern(200, 10, 6), 1000),
		verdictResult("debate", pattern(200, 10, 7), 6000),
	}
	var b strings.Builder
	if err := WriteVerdicts(&b, rs, []string{"mpdf", "absent"}, JudgeOptions{}); err != nil {
		t.Fatal(err)
	}
	v, err := Judge(rs, "mpdf", JudgeOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var want strings.Builder
	want.WriteString("\n")
	if err := v.WriteTable(&want); err != nil {
		t.Fatal(err)
	}
	if b.String() != want.String() {
		t.Errorf("WriteVerdicts:\n%s\nwant:\n%s", b.String(), want.String())
	}
}
