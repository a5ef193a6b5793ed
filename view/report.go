package view

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mpdf/mpdf/metapolicy"
)

// A study's report.html (WriteReport) is built from the two documents a
// study writes, its summary (mpdf study --json) and its rows
// (results.json), not from the study package's types: the page is a
// function of the study's outputs, and study can call it without an
// import cycle. Its tables print the numbers with report.md's formats, cell
// for cell (TestReportHTMLMatchesMarkdown).

// ReportName is the page's file name beside report.md.
const ReportName = "report.html"

// MaxReportQuestions caps the questions listed per paired difference and
// side (won / lost; fewer when the page would be over
// DefaultReportMaxBytes). The counts are always complete; the lists say
// how many they leave out.
const MaxReportQuestions = 25

// DefaultReportMaxBytes is the report's size budget: a few tables, charts
// and capped lists, far below it.
const DefaultReportMaxBytes = 2 << 20

// studySummary is the part of a study's summary the report reads (the
// JSON of study.Summary).
type studySummary struct {
	Env       string       `json:"env"`
	Tasks     int          `json:"tasks"`
	Questions int          `json:"questions"`
	Models    []string     `json:"models"`
	Rounds    int          `json:"rounds"`
	Scopes    []studyScope `json:"scopes"`
	Unscored  int          `json:"unscored_rows"`
	// Verdicts are the study's verdict lines (study.VerdictLine), which
	// the page opens with, as report.md does.
	Verdicts []studyVerdict `json:"verdicts"`
	Notes    []string       `json:"notes"`
	Config   struct {
		Seeds     int `json:"seeds"`
		Bootstrap struct {
			Resamples int
			Seed      uint64
		} `json:"bootstrap"`
	} `json:"config"`
}

// studyVerdict is one verdict line: the learned policy judged ("all λ"
// pooled), the row to use, and the line mpdf study prints.
type studyVerdict struct {
	Policy string `json:"policy"`
	Use    string `json:"use"`
	Line   string `json:"line"`
}

type interval struct {
	Estimate float64 `json:"estimate"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
}

// studyPolicy reads a study's report.json, whose policies name their action
// shares as fields: another action needs its own field here and a column
// in the report's table (this fails to build until then).
var _ = [1]struct{}{}[metapolicy.NumActions-3]

type studyPolicy struct {
	Policy   string   `json:"policy"`
	Lambda   *float64 `json:"lambda"`
	Oracle   bool     `json:"oracle"`
	Rows     int      `json:"rows"`
	Accuracy interval `json:"accuracy"`
	Tokens   float64  `json:"tokens_per_task"`
	Persist  float64  `json:"persist"`
	Refine   float64  `json:"refine"`
	Concede  float64  `json:"concede"`
}

type studyDiff struct {
	Learned  string   `json:"learned"`
	Other    string   `json:"other"`
	Accuracy interval `json:"accuracy"`
	Tokens   float64  `json:"tokens_per_task"`
}

type studyScope struct {
	Name     string        `json:"name"`
	Policies []studyPolicy `json:"policies"`
	Diffs    []studyDiff   `json:"diffs"`
	Level    float64       `json:"level"`
}

// StudyRow is a row of results.json as the report reads it; a study hands
// its rows to WriteReportRows as these, rather than as JSON to parse again.
type StudyRow struct {
	Seed    uint64 `json:"seed"`
	Task    string `json:"task"`
	Index   int    `json:"index"`
	Model   string `json:"model"`
	File    string `json:"file"`
	Policy  string `json:"policy"`
	Scored  int    `json:"scored"`
	Correct int    `json:"correct"`
}

// studyRow is the report's name for a row.
type studyRow = StudyRow

// WriteReport writes a study's report.html to w from its summary (the
// JSON mpdf study --json prints) and its rows (results.json): per scope
// (all models, then each model) report.md's tables, the accuracy–tokens
// frontier as an inline SVG chart, and per paired difference the
// questions where the learned policy won or lost.
// It writes nothing when the input does not parse or the page is over
// DefaultReportMaxBytes.
func WriteReport(w io.Writer, summary, results []byte) error {
	return writeReport(w, summary, results, DefaultReportMaxBytes)
}

// WriteReportRows is WriteReport of results.json's rows given as values
// (the 44,000 rows of a study on every shared transcript took a tenth of a
// second to parse back): the same page as WriteReport of the rows encoded
// as JSON, whose strings hold valid UTF-8 only (an invalid byte reads back
// as U+FFFD, and so it is here).
func WriteReportRows(w io.Writer, summary []byte, rows []StudyRow) error {
	var sum studySummary
	if err := json.Unmarshal(summary, &sum); err != nil {
		return fmt.Errorf("view: report: the study summary: %w", err)
	}
	rs, cloned := rows, false
	for i := range rows {
		r := &rows[i]
		if !utf8.ValidString(r.Task) || !utf8.ValidString(r.Model) || !utf8.ValidString(r.File) || !utf8.ValidString(r.Policy) {
			if !cloned {
				rs, cloned = slices.Clone(rows), true // the caller's rows stay as given
			}
			r := &rs[i]
			r.Task, r.Model, r.File, r.Policy = jsonText(r.Task), jsonText(r.Model), jsonText(r.File), jsonText(r.Policy)
		}
	}
	return renderReport(w, &sum, rs, DefaultReportMaxBytes)
}

// jsonText is s as encoding/json writes and reads it back: each byte that
// is not part of valid UTF-8 becomes U+FFFD.
func jsonText(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			b.WriteString("\uFFFD")
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// writeReport is WriteReport with a size budget.
func writeReport(w io.Writer, summary, results []byte, budget int) error {
	var sum studySummary
	if err := json.Unmarshal(summary, &sum); err != nil {
		return fmt.Errorf("view: report: the study summary: %w", err)
	}
	var rows []studyRow
	if err := json.Unmarshal(results, &rows); err != nil {
		return fmt.Errorf("view: report: the study rows: %w", err)
	}
	return renderReport(w, &sum, rows, budget)
}

// renderReport writes the page of a parsed summary and rows.
func renderReport(w io.Writer, sum *studySummary, rows []studyRow, budget int) error {
	if len(sum.Scopes) == 0 {
		return fmt.Errorf("view: report: the study summary has no scopes")
	}
	// A study with many models and λ lists many questions: shorter lists
	// rather than no page (the counts stay complete).
	var buf bytes.Buffer
	for _, list := range []int{MaxReportQuestions, 5, 0} {
		buf.Reset()
		if err := reportTemplate.Execute(&buf, buildReport(sum, rows, list)); err != nil {
			return fmt.Errorf("view: report: render: %w", err)
		}
		if buf.Len() <= budget {
			_, err := w.Write(buf.Bytes())
			return err
		}
	}
	size, limit := sizePair(buf.Len(), budget)
	return fmt.Errorf("view: report: the page would be %s, over its budget of %s", size, limit)
}

// reportPage is what report.html renders.
type reportPage struct {
	Verdict []verdictHeadline
	Facts   []string
	Scopes  []reportScope
	Rows    int // table rows, for the filter's count
	CSS     template.CSS
	JS      template.JS
}

type reportScope struct {
	ID, Title, Level string
	Policies         [][]string // report.md's cells, per policy
	Oracle           []bool
	Names            []string // policy per row, for the chart's hover
	Diffs            [][]string
	DiffNames        []string
	Chart            template.HTML
	Behind           []behind
}

// behind is the questions behind one paired difference.
type behind struct {
	Learned, Other  string
	Pairs           int // task × seed pairs both scored
	Won, Lost, Tied int // questions
	WonQ, LostQ     []reportQuestion
	MoreWon         int // left out of WonQ
	MoreLost        int
}

type reportQuestion struct {
	Task, Model, File string
	// Delta is learned − other: the share of right episodes, summed over
	// the seeds ("+2": right on two seeds where the other was wrong).
	Delta string
}

// scopeTitle is report.md's heading of a scope.
func scopeTitle(name string) string {
	switch name {
	case "all":
		return "All models"
	case "":
		return "Model unknown (file names that do not say)"
	}
	return "Model " + name
}

// levelPercent is report.md's interval level: 0.95 → "95%".
func levelPercent(level float64) string { return fmt.Sprintf("%.4g%%", 100*level) }

// buildReport lays out the page, listing up to list questions per
// difference and side.
func buildReport(sum *studySummary, rows []studyRow, list int) *reportPage {
	p := &reportPage{CSS: template.CSS(reportCSS), JS: template.JS(reportJS)}
	models := make([]string, len(sum.Models))
	for i, m := range sum.Models {
		if m == "" {
			m = "unknown"
		}
		models[i] = m
	}
	p.Facts = []string{
		"environment: " + shortEnv(sum.Env),
		fmt.Sprintf("%d tasks, %d distinct questions, models: %s; up to %d deliberation rounds", sum.Tasks, sum.Questions, strings.Join(models, ", "), sum.Rounds),
		fmt.Sprintf("intervals: %s percentile bootstrap, %d resamples of questions (seed %d); accuracy is over task × seed rows",
			levelPercent(sum.Scopes[0].Level), sum.Config.Bootstrap.Resamples, sum.Config.Bootstrap.Seed),
	}
	if sum.Unscored > 0 {
		p.Facts = append(p.Facts, fmt.Sprintf("%d rows have no readable gold answer: counted in tokens and actions, not in accuracy", sum.Unscored))
	}
	p.Facts = append(p.Facts, sum.Notes...)
	for _, v := range sum.Verdicts {
		p.Verdict = append(p.Verdict, headline(v))
	}
	for i, sc := range sum.Scopes {
		rs := reportScope{ID: fmt.Sprintf("s%d", i), Title: scopeTitle(sc.Name), Level: levelPercent(sc.Level)}
		for _, ps := range sc.Policies {
			rs.Policies = append(rs.Policies, []string{ps.Policy, fmt.Sprint(ps.Rows), fmt.Sprintf("%.3f", ps.Accuracy.Estimate),
				fmt.Sprintf("[%.3f, %.3f]", ps.Accuracy.Low, ps.Accuracy.High), fmt.Sprintf("%.0f", ps.Tokens),
				fmt.Sprintf("%.3f", ps.Persist), fmt.Sprintf("%.3f", ps.Refine), fmt.Sprintf("%.3f", ps.Concede)})
			rs.Oracle = append(rs.Oracle, ps.Oracle)
			rs.Names = append(rs.Names, ps.Policy)
		}
		for _, d := range sc.Diffs {
			rs.Diffs = append(rs.Diffs, []string{d.Learned, d.Other, fmt.Sprintf("%+.1f", 100*d.Accuracy.Estimate),
				fmt.Sprintf("[%+.1f, %+.1f]", 100*d.Accuracy.Low, 100*d.Accuracy.High), fmt.Sprintf("%+.0f", d.Tokens)})
			rs.DiffNames = append(rs.DiffNames, d.Learned+" "+d.Other)
			rs.Behind = append(rs.Behind, questionsBehind(rows, sc.Name, d.Learned, d.Other, list))
		}
		p.Rows += len(rs.Policies) + len(rs.Diffs)
		rs.Chart = frontier(rs.ID, sc)
		p.Scopes = append(p.Scopes, rs)
	}
	return p
}

// shortEnv abbreviates a replay's list of files, as report.md does.
func shortEnv(name string) string {
	if n := strings.Count(name, ","); strings.HasPrefix(name, "replay:") && n > 0 {
		return fmt.Sprintf("replay of %d files", n+1)
	}
	return name
}

// questionsBehind pairs learned's and other's rows of the scope by task
// and seed, as the study's paired difference does, and lists the
// questions where learned answered right more (won) or less (lost) often,
// the largest differences first, up to list of each.
func questionsBehind(rows []studyRow, scope, learned, other string, list int) behind {
	b := behind{Learned: learned, Other: other}
	type key struct {
		seed uint64
		task int
	}
	in := func(r *studyRow) bool { return scope == "all" || r.Model == scope }
	mine := map[key]*studyRow{}
	for i := range rows {
		r := &rows[i]
		if r.Policy == learned && in(r) {
			mine[key{r.Seed, r.Index}] = r
		}
	}
	type tally struct {
		q     reportQuestion
		index int
		delta float64
	}
	var order []int
	per := map[int]*tally{}
	for i := range rows {
		r := &rows[i]
		if r.Policy != other || !in(r) {
			continue
		}
		a, ok := mine[key{r.Seed, r.Index}]
		if !ok || a.Scored == 0 || r.Scored == 0 {
			continue
		}
		b.Pairs++
		t, ok := per[r.Index]
		if !ok {
			t = &tally{q: reportQuestion{Task: r.Task, Model: r.Model, File: r.File}, index: r.Index}
			per[r.Index] = t
			order = append(order, r.Index)
		}
		t.delta += float64(a.Correct)/float64(a.Scored) - float64(r.Correct)/float64(r.Scored)
	}
	var won, lost []*tally
	for _, i := range order {
		t := per[i]
		switch {
		case t.delta > 1e-12:
			won = append(won, t)
		case t.delta < -1e-12:
			lost = append(lost, t)
		default:
			b.Tied++
		}
	}
	byMagnitude := func(x, y *tally) int {
		dx, dy := abs(x.delta), abs(y.delta)
		if dx != dy {
			if dx > dy {
				return -1
			}
			return 1
		}
		return x.index - y.index
	}
	slices.SortFunc(won, byMagnitude)
	slices.SortFunc(lost, byMagnitude)
	b.Won, b.Lost = len(won), len(lost)
	first := func(ts []*tally) ([]reportQuestion, int) {
		var qs []reportQuestion
		for _, t := range ts[:min(len(ts), list)] {
			q := t.q
			q.Delta = fmt.Sprintf("%+.3g", t.delta)
			qs = append(qs, q)
		}
		return qs, len(ts) - len(qs)
	}
	b.WonQ, b.MoreWon = first(won)
	b.LostQ, b.MoreLost = first(lost)
	return b
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

// baseName is a transcript file's name without its directory, for the
// lists.
func baseName(path string) string {
	if path == "" {
		return ""
	}
	return filepath.Base(path)
}

//go:embed report.css
var reportCSS string

//go:embed report.js
var reportJS string

//go:embed report.html
var reportHTML string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"base": baseName,
	"add":  func(a, b int) int { return a + b },
}).Parse(reportHTML))
