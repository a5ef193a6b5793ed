package view_test

import (
	"bytes"
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/view"
)

// learnedByLambda "trains" a heuristic per λ (gate at λ = 0, persist
// otherwise): a study whose learned policies differ from each other and
// from some baselines, without the cost of training.
func learnedByLambda(train env.Env, cfg trainer.Config) (metapolicy.Policy, error) {
	if cfg.Reward.Lambda == 0 {
		return metapolicy.ParseHeuristic("gate")
	}
	return metapolicy.ParseHeuristic("persist")
}

// reportStudy runs a small study on the shared GSM8K transcripts of three
// agents (five models, so report.md has per-model scopes) and writes its
// directory.
func reportStudy(t testing.TB) string {
	dir, _ := reportStudySummary(t)
	return dir
}

// reportStudySummary is reportStudy, with the study's summary as JSON
// (what mpdf study --json prints; the page is made from it).
func reportStudySummary(t testing.TB) (string, []byte) {
	t.Helper()
	e, _, err := replay.Load(testenv.Debates(t, "slm-debate/gsm/*agents3*.json"), transcript.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := study.Config{Folds: 2, Seeds: 1, Seed: 1, Lambdas: []float64{0, 0.5}, Episodes: 1,
		Baselines: []string{"persist", "debate", "majority", "random"}, Trainer: learnedByLambda, Workers: 2,
		Bootstrap: stats.Bootstrap{Resamples: 200, Level: 0.9, Seed: 1}}
	s, err := study.CrossValidate(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := s.Summarise()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "study")
	if err := s.WriteDir(dir, sum); err != nil {
		t.Fatal(err)
	}
	var js bytes.Buffer
	if err := sum.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	return dir, js.Bytes()
}

var (
	tableRowRE = regexp.MustCompile(`(?s)<tr[^>]*>(.*?)</tr>`)
	cellRE     = regexp.MustCompile(`(?s)<t[dh][^>]*>(.*?)</t[dh]>`)
	tagRE      = regexp.MustCompile(`<[^>]+>`)
	headingRE  = regexp.MustCompile(`<h2>(.*?)</h2>`)
)

// htmlTables is the page's scope headings and table rows, cells as text.
func htmlTables(page string) (headings []string, rows [][]string) {
	for _, m := range headingRE.FindAllStringSubmatch(page, -1) {
		headings = append(headings, html.UnescapeString(m[1]))
	}
	for _, tr := range tableRowRE.FindAllStringSubmatch(page, -1) {
		var cells []string
		for _, c := range cellRE.FindAllStringSubmatch(tr[1], -1) {
			cells = append(cells, html.UnescapeString(tagRE.ReplaceAllString(c[1], "")))
		}
		rows = append(rows, cells)
	}
	return headings, rows
}

// mdTables is report.md's scope headings and table rows (the |---| lines
// left out, emphasis marks removed).
func mdTables(md string) (headings []string, rows [][]string) {
	for _, line := range strings.Split(md, "\n") {
		if h, ok := strings.CutPrefix(line, "## "); ok {
			headings = append(headings, h)
		}
		if !strings.HasPrefix(line, "|") || strings.HasPrefix(line, "|---") {
			continue
		}
		var cells []string
		for _, c := range strings.Split(strings.Trim(line, "|"), "|") {
			cells = append(cells, strings.Trim(strings.TrimSpace(c), "*"))
		}
		rows = append(rows, cells)
	}
	return headings, rows
}

// TestReportHTMLMatchesMarkdown: report.html, written beside report.md by
// the study, has report.md's scopes and tables, cell for cell, and lists
// questions behind the differences (by id: the study writes no viewer
// page to link to).
func TestReportHTMLMatchesMarkdown(t *testing.T) {
	dir := reportStudy(t)
	md, err := os.ReadFile(filepath.Join(dir, study.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, view.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	mh, mr := mdTables(string(md))
	hh, hr := htmlTables(string(page))
	if len(mh) < 3 || len(mr) < 10 {
		t.Fatalf("report.md has %d scopes and %d table rows: the study is too small to test with\n%s", len(mh), len(mr), md)
	}
	if fmt.Sprint(hh) != fmt.Sprint(mh) {
		t.Errorf("scopes:\nhtml %q\nmd   %q", hh, mh)
	}
	if len(hr) != len(mr) {
		t.Fatalf("report.html has %d table rows, report.md %d", len(hr), len(mr))
	}
	for i := range mr {
		if fmt.Sprintf("%q", hr[i]) != fmt.Sprintf("%q", mr[i]) {
			t.Errorf("table row %d:\nhtml %q\nmd   %q", i, hr[i], mr[i])
		}
	}
	p := string(page)
	for _, want := range []string{`<svg id="chart-s0"`, `<polyline points=`, `<li><code>gsm8k:`} {
		if !strings.Contains(p, want) {
			t.Errorf("report.html lacks %s", want)
		}
	}
	if strings.Contains(p, "ZgotmplZ") || strings.Contains(p, "http://") || strings.Contains(p, "https://") {
		t.Error("report.html has a refused value (ZgotmplZ) or a network address")
	}
}

// TestReportEscapes: names from the study's input reach the page escaped.
func TestReportEscapes(t *testing.T) {
	sum := `{"env":"replay:<b>x</b>.json","tasks":1,"questions":1,"models":["<script>m</script>"],"rounds":1,
	"scopes":[{"name":"all","level":0.95,"policies":[{"policy":"<img src=x onerror=alert(1)>","rows":1,"accuracy":{"estimate":1,"low":1,"high":1},"tokens_per_task":5}],
	"diffs":[{"learned":"a","other":"<img src=x onerror=alert(1)>","accuracy":{"estimate":1,"low":1,"high":1}}]}]}`
	rows := `[{"seed":1,"task":"\"><script>t</script>","index":0,"model":"<script>m</script>","file":"f<x>.json","policy":"a","scored":1,"correct":1},
	{"seed":1,"task":"\"><script>t</script>","index":0,"model":"<script>m</script>","file":"f<x>.json","policy":"<img src=x onerror=alert(1)>","scored":1,"correct":0}]`
	var b bytes.Buffer
	if err := view.WriteReport(&b, []byte(sum), []byte(rows)); err != nil {
		t.Fatal(err)
	}
	p := b.String()
	for _, bad := range []string{"<img", "<script>m", "<script>t", "<b>x"} {
		if strings.Contains(p, bad) {
			t.Errorf("page holds %q unescaped", bad)
		}
	}
	if !strings.Contains(p, "won on 1 tasks") {
		t.Error("the question behind the difference is not listed")
	}
	if err := view.WriteReport(&b, []byte(`{"scopes":`), []byte(rows)); err == nil || !strings.Contains(err.Error(), "summary") {
		t.Errorf("a torn summary: %v, want an error naming it", err)
	}
}

// TestReportDeterministic: the same study, run on one worker or three,
// writes the same report.html.
func TestReportDeterministic(t *testing.T) {
	e, err := sim.New(sim.Config{Tasks: 30, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	var pages [2][]byte
	for i, workers := range []int{1, 3} {
		cfg := study.Config{Folds: 3, Seeds: 1, Seed: 1, Lambdas: []float64{0, 1}, Episodes: 2,
			Baselines: []string{"persist", "debate", "random"}, Trainer: learnedByLambda, Workers: workers,
			Bootstrap: stats.Bootstrap{Resamples: 200, Seed: 1}}
		s, err := study.CrossValidate(e, cfg)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := s.Summarise()
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(t.TempDir(), "study")
		if err := s.WriteDir(dir, sum); err != nil {
			t.Fatal(err)
		}
		if pages[i], err = os.ReadFile(filepath.Join(dir, view.ReportName)); err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(pages[0], pages[1]) {
		t.Error("same study on 1 and 3 workers: report.html differs")
	}
}

// TestReportShortensLists: a study with many models and differences
// lists fewer questions per difference rather than write no page; the
// counts stay whole. (Ten models against a tenth of the budget: the
// page of 100 models against the whole budget, at a tenth of the test's
// time.)
func TestReportShortensLists(t *testing.T) {
	others := []string{"persist", "debate", "majority", "random", "gate"}
	var sum, rows strings.Builder
	sum.WriteString(`{"env":"replay:a.json,b.json","scopes":[`)
	rows.WriteString(`[`)
	for m := range 10 {
		model := fmt.Sprintf("model-%02d-with-a-long-name", m)
		if m > 0 {
			sum.WriteString(",")
		}
		fmt.Fprintf(&sum, `{"name":%q,"level":0.95,"policies":[{"policy":"mpdf λ=0","lambda":0,"rows":50}],"diffs":[`, model)
		for k, o := range others {
			if k > 0 {
				sum.WriteString(",")
			}
			fmt.Fprintf(&sum, `{"learned":"mpdf λ=0","other":%q}`, o)
		}
		sum.WriteString(`]}`)
		for task := range 50 {
			for _, pol := range append([]string{"mpdf λ=0"}, others...) {
				correct := 0
				if pol == "mpdf λ=0" {
					correct = 1
				}
				if m+task > 0 || pol != "mpdf λ=0" {
					rows.WriteString(",")
				}
				fmt.Fprintf(&rows, `{"seed":1,"task":"gsm8k:%02d%010d","index":%d,"model":%q,"file":"gsm_%s_persona_agents3_rounds3.json","policy":%q,"scored":1,"correct":%d}`,
					m, task, m*50+task, model, model, pol, correct)
			}
		}
	}
	sum.WriteString(`]}`)
	rows.WriteString(`]`)
	var b bytes.Buffer
	budget := view.DefaultReportMaxBytes / 10
	if err := view.WriteReportBudget(&b, []byte(sum.String()), []byte(rows.String()), budget); err != nil {
		t.Fatal(err)
	}
	p := b.String()
	if b.Len() > budget || !strings.Contains(p, "won on 50 tasks") || !strings.Contains(p, "and 45 more") {
		t.Errorf("page of %d bytes (budget %d); want the lists cut to 5 of 50 questions", b.Len(), budget)
	}
}
