package compare

import (
	"bytes"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/stats"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/internal/studytest"
)

// handRows builds a study's rows: for each seed and task, one row per
// policy with correct = right(policy, task, seed) and tokens given by tok.
// Tasks 0–3 are gsm8k (model A for 0,1; B for 2,3), 4–5 mmlu (model B).
func handRows(seeds []uint64, policies []string, right func(p string, task int, seed uint64) bool, tok func(p string) int64) []study.ResultRow {
	kinds := []string{"gsm8k", "gsm8k", "gsm8k", "gsm8k", "mmlu", "mmlu"}
	models := []string{"A", "A", "B", "B", "B", "B"}
	var rows []study.ResultRow
	for _, s := range seeds {
		for _, p := range policies {
			for task := range kinds {
				r := study.ResultRow{Seed: s, Task: fmt.Sprintf("%s:q%d", kinds[task], task), Index: task, Model: models[task],
					File: fmt.Sprintf("%s_%s.json", kinds[task], models[task]), Policy: p, Episodes: 1, Scored: 1, Tokens: tok(p)}
				if strings.HasPrefix(p, "mpdf") {
					l := 0.0
					r.Lambda = &l
				}
				if right(p, task, s) {
					r.Correct = 1
				}
				rows = append(rows, r)
			}
		}
	}
	return rows
}

var handPolicies = []string{"majority", "gate", study.LearnedName(0)}

func handTokens(p string) int64 {
	return map[string]int64{"majority": 100, "gate": 300, study.LearnedName(0): 200}[p]
}

// right answers: majority gets gsm8k of model A and all mmlu; gate gets
// every gsm8k; the learned policy gets tasks 0, 2, 4.
func handRight(p string, task int, _ uint64) bool {
	switch p {
	case "majority":
		return task <= 1 || task >= 4
	case "gate":
		return task <= 3
	}
	return task%2 == 0
}

func find[T any](t *testing.T, xs []T, ok func(T) bool) T {
	t.Helper()
	for _, x := range xs {
		if ok(x) {
			return x
		}
	}
	var zero T
	t.Fatalf("not found in %+v", xs)
	return zero
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-12 }

func TestCompareByKindAndModel(t *testing.T) {
	res := &Results{Name: "a", Rows: handRows([]uint64{1, 2}, handPolicies, handRight, handTokens)}
	tests := []struct {
		by     By
		group  string
		rows   int
		acc    map[string]float64
		diffVs map[string]float64 // learned − other
	}{
		{Overall, "all", 12, map[string]float64{"majority": 4.0 / 6, "gate": 4.0 / 6, study.LearnedName(0): 0.5}, map[string]float64{"majority": 0.5 - 4.0/6, "gate": 0.5 - 4.0/6}},
		{ByKind, "gsm8k", 8, map[string]float64{"majority": 0.5, "gate": 1, study.LearnedName(0): 0.5}, map[string]float64{"majority": 0, "gate": -0.5}},
		{ByKind, "mmlu", 4, map[string]float64{"majority": 1, "gate": 0, study.LearnedName(0): 0.5}, map[string]float64{"majority": -0.5, "gate": 0.5}},
		{ByModel, "A", 4, map[string]float64{"majority": 1, "gate": 1, study.LearnedName(0): 0.5}, map[string]float64{"majority": -0.5, "gate": -0.5}},
		{ByModel, "B", 8, map[string]float64{"majority": 0.5, "gate": 0.5, study.LearnedName(0): 0.5}, map[string]float64{"majority": 0, "gate": 0}},
		{ByModelKind, "B × gsm8k", 4, map[string]float64{"majority": 0, "gate": 1, study.LearnedName(0): 0.5}, map[string]float64{"majority": 0.5, "gate": -0.5}},
	}
	for _, tc := range tests {
		t.Run(string(tc.by)+"/"+tc.group, func(t *testing.T) {
			c, err := Compare([]*Results{res}, Config{By: tc.by})
			if err != nil {
				t.Fatal(err)
			}
			if c.Policy != study.LearnedName(0) || len(c.Against) != 2 || c.Against[0] != "majority" || c.Against[1] != "gate" {
				t.Fatalf("defaults: policy %q against %q, want the learned one against majority, gate", c.Policy, c.Against)
			}
			sc := find(t, c.Scopes, func(s Scope) bool { return s.Name == tc.group })
			if sc.Rows != tc.rows {
				t.Errorf("%d rows, want %d", sc.Rows, tc.rows)
			}
			for p, want := range tc.acc {
				ps := find(t, sc.Policies, func(s study.PolicyStats) bool { return s.Policy == p })
				if !near(ps.Accuracy.Estimate, want) || ps.Rows != tc.rows {
					t.Errorf("%s: accuracy %v over %d rows, want %v over %d", p, ps.Accuracy.Estimate, ps.Rows, want, tc.rows)
				}
				if ps.Accuracy.Low > ps.Accuracy.Estimate || ps.Accuracy.High < ps.Accuracy.Estimate {
					t.Errorf("%s: interval %+v does not hold its estimate", p, ps.Accuracy)
				}
			}
			for o, want := range tc.diffVs {
				d := find(t, sc.Diffs, func(d study.Diff) bool { return d.Other == o })
				if !near(d.Accuracy.Estimate, want) || !near(d.Tokens, float64(handTokens(study.LearnedName(0))-handTokens(o))) {
					t.Errorf("− %s: %+v, want accuracy %v, tokens %v", o, d, want, handTokens(study.LearnedName(0))-handTokens(o))
				}
			}
		})
	}
}

// On a study's own rows Compare gives report.md's numbers: the same
// accuracies, intervals and paired differences.
func TestCompareMatchesSummarise(t *testing.T) {
	sim, err := sim.New(sim.Config{Tasks: 30, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	cfg := study.Config{Folds: 3, Seeds: 2, Lambdas: []float64{0}, Episodes: 2,
		Baselines: []string{"persist", "debate"}, Trainer: studytest.ConstTrainer("gate"), Workers: 2,
		Bootstrap: stats.Bootstrap{Resamples: 300, Level: 0.9, Seed: 4}}
	s, err := study.CrossValidate(sim, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Summarise()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := s.WriteResults(&buf); err != nil {
		t.Fatal(err)
	}
	res, err := ReadResults(&buf, "results.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := Compare([]*Results{res}, Config{Bootstrap: cfg.Bootstrap, Against: []string{"persist", "debate", study.OracleName}})
	if err != nil {
		t.Fatal(err)
	}
	want := sum.Scopes[0]
	got := c.Scopes[0]
	if len(got.Policies) != len(want.Policies) {
		t.Fatalf("%d policies, want %d", len(got.Policies), len(want.Policies))
	}
	for i, p := range want.Policies {
		g := got.Policies[i]
		if g.Policy != p.Policy || g.Accuracy != p.Accuracy || g.Rows != p.Rows || !near(g.TokensPerTask, p.TokensPerTask) || g.Persist != p.Persist {
			t.Errorf("policy %d: compare %+v, report %+v", i, g, p)
		}
	}
	if len(got.Diffs) != len(want.Diffs) {
		t.Fatalf("%d diffs, want %d", len(got.Diffs), len(want.Diffs))
	}
	for i, d := range want.Diffs {
		if g := got.Diffs[i]; g.Accuracy != d.Accuracy || !near(g.Tokens, d.Tokens) || g.Other != d.Other {
			t.Errorf("diff %d: compare %+v, report %+v", i, g, d)
		}
	}
}

func TestComparePairAcrossStudies(t *testing.T) {
	a := &Results{Name: "a", Rows: handRows([]uint64{1, 2}, handPolicies, handRight, handTokens)}
	// B: the same tasks, in another order of task indices (another Env's
	// numbering), where the learned policy gets every task right.
	bRows := handRows([]uint64{1, 2}, handPolicies, func(p string, task int, s uint64) bool {
		return p == study.LearnedName(0) || handRight(p, task, s)
	}, handTokens)
	for i := range bRows {
		bRows[i].Index = 100 - bRows[i].Index
	}
	b := &Results{Name: "b", Rows: bRows}

	c, err := Compare([]*Results{a}, Config{Pair: b, By: ByKind})
	if err != nil {
		t.Fatal(err)
	}
	all := c.Scopes[0]
	if len(all.Paired) != 3 {
		t.Fatalf("paired %+v: want majority, gate and the learned policy each with itself", all.Paired)
	}
	for _, d := range all.Paired {
		want := 0.0
		if d.Policy == study.LearnedName(0) {
			want = -0.5 // a: 6 of 12, b: 12 of 12
		}
		if d.Policy != d.Other || !near(d.Accuracy.Estimate, want) || d.Rows != 12 {
			t.Errorf("%+v: want %s − itself = %v over 12 rows", d, d.Policy, want)
		}
	}
	// --policy gate --pair-against majority: gate in a − majority in b.
	c, err = Compare([]*Results{a}, Config{Pair: b, Policy: "gate", PairAgainst: []string{"majority"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := c.Scopes[0].Paired; len(p) != 1 || !near(p[0].Accuracy.Estimate, 0) || !near(p[0].Tokens, 200) {
		t.Errorf("gate − majority (b): %+v, want 0 points (4/6 each), +200 tokens", p)
	}

	// Rows that do not pair are refused: another seed, another task.
	for name, mutate := range map[string]func([]study.ResultRow){
		"seed": func(r []study.ResultRow) {
			for i := range r {
				r[i].Seed += 10
			}
		},
		"task": func(r []study.ResultRow) { r[0].Task = "gsm8k:other" },
	} {
		rows := append([]study.ResultRow(nil), bRows...)
		mutate(rows)
		_, err := Compare([]*Results{a}, Config{Pair: &Results{Name: "b", Rows: rows}})
		if err == nil || !strings.Contains(err.Error(), "do not pair") {
			t.Errorf("%s: err %v, want rows do not pair", name, err)
		}
	}
	// A subset pairs with the whole; the rest of the whole is counted.
	c, err = Compare([]*Results{{Name: "a0", Rows: a.Rows[:6]}}, Config{Pair: b, Policy: "majority", PairAgainst: []string{"majority"}})
	if err != nil {
		t.Fatal(err)
	}
	if c.PairedOff != 6 { // b's seed 2
		t.Errorf("PairedOff %d", c.PairedOff)
	}
}

func TestComparePoolsStudies(t *testing.T) {
	rows := handRows([]uint64{1}, handPolicies, handRight, handTokens)
	var gsm, mmlu []study.ResultRow
	for _, r := range rows {
		if strings.HasPrefix(r.Task, "gsm8k") {
			gsm = append(gsm, r)
		} else {
			r.Index -= 4 // its own Env numbers it from 0
			mmlu = append(mmlu, r)
		}
	}
	whole, err := Compare([]*Results{{Name: "all", Rows: rows}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	pooled, err := Compare([]*Results{{Name: "gsm", Rows: gsm}, {Name: "mmlu", Rows: mmlu}}, Config{})
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range whole.Scopes[0].Policies {
		if q := pooled.Scopes[0].Policies[i]; q.Accuracy != p.Accuracy || q.Rows != p.Rows {
			t.Errorf("pooled %+v, whole %+v", q, p)
		}
	}
	_, err = Compare([]*Results{{Name: "gsm", Rows: gsm}, {Name: "gsm again", Rows: gsm}}, Config{})
	if err == nil || !strings.Contains(err.Error(), "distinct rows") {
		t.Errorf("the same study twice: err %v, want refused", err)
	}
}

func TestCompareCeiling(t *testing.T) {
	res := &Results{Name: "a", Rows: handRows([]uint64{1, 2}, handPolicies, handRight, handTokens)}
	// gate listed first: a tie goes to the cheaper protocol, not the first.
	cfg := Config{Ceilings: []By{ByModel, ByKind, ByModelKind}, Against: []string{"gate"}, Among: []string{"gate", "majority"}}
	c, err := Compare([]*Results{res}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		by      By
		choices string
		acc     float64
	}{
		// model A: majority and gate both 1, majority cheaper; B: both ½, majority cheaper.
		{ByModel, "A=majority B=majority", 4.0 / 6},
		{ByKind, "gsm8k=gate mmlu=majority", 1},
		{ByModelKind, "A × gsm8k=majority B × gsm8k=gate B × mmlu=majority", 1},
	}
	for i, tc := range tests {
		ce := c.Ceilings[i]
		var ch []string
		for _, x := range ce.Choices {
			ch = append(ch, x.Group+"="+x.Protocol)
		}
		if ce.By != tc.by || strings.Join(ch, " ") != tc.choices || !near(ce.Accuracy.Estimate, tc.acc) || ce.Rows != 12 {
			t.Errorf("%s: choices %q accuracy %v rows %d, want %q, %v, 12", tc.by, ch, ce.Accuracy.Estimate, ce.Rows, tc.choices, tc.acc)
		}
		if len(ce.Diffs) != 2 || ce.Diffs[0].Other != "gate" || !near(ce.Diffs[0].Accuracy.Estimate, tc.acc-4.0/6) ||
			ce.Diffs[1].Learned != study.LearnedName(0) || !near(ce.Diffs[1].Accuracy.Estimate, 0.5-tc.acc) {
			t.Errorf("%s: diffs %+v", tc.by, ce.Diffs)
		}
	}
	// Deterministic bytes.
	var x, y bytes.Buffer
	if err := c.WriteMarkdown(&x); err != nil {
		t.Fatal(err)
	}
	c2, _ := Compare([]*Results{res}, cfg)
	c2.WriteMarkdown(&y)
	if !bytes.Equal(x.Bytes(), y.Bytes()) || !strings.Contains(x.String(), "hindsight") {
		t.Errorf("two runs differ, or the ceiling is not labelled hindsight:\n%s", x.String())
	}
}

func TestReadResultsErrors(t *testing.T) {
	good := `{"seed":1,"fold":0,"task":"gsm8k:a","index":0,"model":"m","policy":"gate","episodes":1,"scored":1,"correct":1,"tokens":5,"persist":0,"refine":0,"concede":0}`
	tests := []struct {
		name, in, want string
	}{
		{"not an array", `{"a":1}`, "want a JSON array"},
		{"empty", ``, "empty"},
		{"no rows", `[]`, "no rows"},
		{"unknown field", `[` + good + `,{"seed":1,"bogus":2}]`, `row 2 (offset`},
		{"correct > scored", `[` + strings.Replace(good, `"correct":1`, `"correct":2`, 1) + `]`, "correct: 2 of 1"},
		{"no policy", `[` + strings.Replace(good, `"policy":"gate"`, `"policy":""`, 1) + `]`, "policy: missing"},
		{"duplicate", `[` + good + `,` + good + `]`, "again: first at row 1"},
		{"truncated", `[` + good + `,`, "row 2"},
		{"trailing", `[` + good + `] x`, "after the array"},
	}
	for _, tc := range tests {
		_, err := ReadResults(strings.NewReader(tc.in), "r.json")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "r.json") {
			t.Errorf("%s: err %v, want %q and the file name", tc.name, err, tc.want)
		}
	}
	r, err := ReadResults(strings.NewReader("[\n"+good+"\n]\n"), "r.json")
	if err != nil || len(r.Rows) != 1 || r.Rows[0].Tokens != 5 {
		t.Errorf("good file: %+v, %v", r, err)
	}
}
