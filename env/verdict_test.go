package env

import (
	"fmt"
	"strings"
	"testing"
)

// result makes a Result over n tasks: correct[i] says whether task i was
// right (one episode each), tokens its tokens.
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

// pattern is n tasks of which those with i%m < k are correct.
func pattern(n, m, k int) []bool {
	out := make([]bool, n)
	for i := range out {
		out[i] = i%m < k
	}
	return out
}

func TestJudgeCheaperBaselineWins(t *testing.T) {
	rs := Results{
		verdictResult("mpdf", pattern(200, 10, 7), 3000),
		verdictResult("majority", pattern(200, 10, 6), 1000),
		verdictResult("debate", pattern(200, 10, 7), 6000),
		verdictResult("gate", pattern(200, 10, 7), 2000),
		verdictResult("until-consensus", pattern(200, 10, 7), 2500),
		verdictResult("threshold", pattern(200, 10, 9), 500),
	}
	v, err := Judge(rs, "mpdf", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Rows) != 5 || v.Rows[0].Policy != "mpdf" {
		t.Fatalf("rows %+v: want mpdf then 4 baselines (no threshold without a confidence)", v.Rows)
	}
	if v.Use != "gate" || !strings.Contains(v.Sentence, "gate is as accurate as this policy") {
		t.Fatalf("use %s: %s", v.Use, v.Sentence)
	}
	front := map[string]bool{}
	for _, r := range v.Rows {
		front[r.Policy] = r.Frontier
	}
	if !front["majority"] || !front["gate"] || front["mpdf"] || front["debate"] || front["until-consensus"] {
		t.Fatalf("frontier %v: want majority and gate only", front)
	}
	if d := v.Rows[1].DeltaAccuracy; d.Estimate < 9.99 || d.Estimate > 10.01 || d.Low <= 0 {
		t.Fatalf("mpdf − majority %+v: want +10 points, interval above 0", d)
	}
	if d := v.Rows[3].DeltaAccuracy; d.Estimate != 0 || d.Low != 0 || d.High != 0 {
		t.Fatalf("mpdf − gate %+v: identical outcomes, want 0 [0, 0]", d)
	}
	// With a confidence, threshold is judged too, and it is both more
	// accurate and cheaper.
	v, err = Judge(rs, "mpdf", true)
	if err != nil {
		t.Fatal(err)
	}
	if v.Use != "threshold" || !strings.Contains(v.Sentence, "more accurate than this policy") {
		t.Fatalf("use %s: %s", v.Use, v.Sentence)
	}
}

func TestJudgePolicyWinsOrTradesOff(t *testing.T) {
	rs := Results{
		verdictResult("mpdf", pattern(300, 10, 8), 1500),
		verdictResult("majority", pattern(300, 10, 6), 1000),
		verdictResult("gate", pattern(300, 10, 8), 2000),
	}
	v, err := Judge(rs, "mpdf", false)
	if err != nil {
		t.Fatal(err)
	}
	if v.Use != "mpdf" || !strings.Contains(v.Sentence, "none as accurate costs fewer tokens: use this policy.") || !v.Rows[0].Frontier {
		t.Fatalf("use %s (frontier %v): %s", v.Use, v.Rows[0].Frontier, v.Sentence)
	}
	rs[2] = verdictResult("gate", pattern(300, 10, 10), 2000)
	if v, err = Judge(rs, "mpdf", false); err != nil {
		t.Fatal(err)
	}
	if v.Use != "mpdf" || !strings.Contains(v.Sentence, "gate when accuracy does") {
		t.Fatalf("use %s: %s", v.Use, v.Sentence)
	}
	// A cheaper baseline as accurate is the pick; a more accurate one is
	// named beside it.
	rs[1] = verdictResult("majority", pattern(300, 10, 8), 1000)
	if v, err = Judge(rs, "mpdf", false); err != nil {
		t.Fatal(err)
	}
	if v.Use != "majority" || !strings.Contains(v.Sentence, "use majority (or gate for accuracy") {
		t.Fatalf("use %s: %s", v.Use, v.Sentence)
	}
}

func TestJudgePolicyThatIsABaseline(t *testing.T) {
	rs := Results{
		verdictResult("mpdf", pattern(100, 10, 8), 1500),
		verdictResult("majority", pattern(100, 10, 6), 1000),
		verdictResult("gate", pattern(100, 10, 8), 1500),
	}
	v, err := Judge(rs, "mpdf", false)
	if err != nil {
		t.Fatal(err)
	}
	if v.Use != "gate" || !strings.Contains(v.Sentence, "plays as gate does") {
		t.Fatalf("use %s: %s", v.Use, v.Sentence)
	}
}

func TestJudgeRefusesUnpairedResults(t *testing.T) {
	rs := Results{verdictResult("mpdf", pattern(10, 2, 1), 100), verdictResult("majority", pattern(12, 2, 1), 100)}
	if _, err := Judge(rs, "mpdf", false); err == nil || !strings.Contains(err.Error(), "not paired") {
		t.Fatalf("err %v: want not paired", err)
	}
	if _, err := Judge(rs[:1], "mpdf", false); err == nil {
		t.Fatal("no baseline: want an error")
	}
	if _, err := Judge(rs, "other", false); err == nil {
		t.Fatal("unknown policy: want an error")
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
	v, err := Judge(Results{l, b, g}, "mpdf", false)
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
	if v.Use != "gate" {
		t.Errorf("use %s (%s), want gate: more accurate and cheaper", v.Use, v.Sentence)
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
	if err := WriteVerdicts(&b, rs, []string{"mpdf", "absent"}, false); err != nil {
		t.Fatal(err)
	}
	v, err := Judge(rs, "mpdf", false)
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
