package view_test

import (
	"encoding/json"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/view"
)

// The charts of the shared corpus's report (every scope: all models and
// each of five) label every point, no two labels overlap, each stays in
// the plot's frame, and a label drawn away from its point has a leader
// line; the page draws the labels where they were placed.
func TestReportChartLabelsApart(t *testing.T) {
	dir, summary := reportStudySummary(t)
	charts, frame, err := view.ReportLabels(summary)
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, view.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) < 3 {
		t.Fatalf("%d charts: the study is too small to test with", len(charts))
	}
	crowded := 0 // labels whose point has another within 20 units
	for c, labels := range charts {
		for i, l := range labels {
			if !l.Box.Within(frame) {
				t.Errorf("chart %d: label %q at %+v is outside the plot %+v", c, l.Text, l.Box, frame)
			}
			for _, m := range labels[:i] {
				if l.Box.Overlaps(m.Box) {
					t.Errorf("chart %d: labels %q %+v and %q %+v overlap", c, m.Text, m.Box, l.Text, l.Box)
				}
				if dx, dy := l.X-m.X, l.Y-m.Y; dx*dx+dy*dy < 400 {
					crowded++
				}
			}
			// Beside its point (the gap is 7 units), or joined to it.
			dx := max(0, l.Box.X0-l.X, l.X-l.Box.X1)
			dy := max(0, l.Box.Y0-l.Y, l.Y-l.Box.Y1)
			if dx*dx+dy*dy > 10*10 && !l.Leader {
				t.Errorf("chart %d: label %q is %.0f, %.0f units from its point with no leader line", c, l.Text, dx, dy)
			}
			text := `class="lbl" fill="`
			if !strings.Contains(string(page), text) || !strings.Contains(string(page), ">"+html.EscapeString(l.Text)+"</text>") {
				t.Errorf("chart %d: the page does not draw the label %q", c, l.Text)
			}
		}
	}
	if crowded == 0 {
		t.Error("no two labelled points are within 20 units: the test checks no crowded chart")
	}
}

// The report opens with the verdict: a headline per λ and the pooled one,
// saying which policy to use, in the study's own words (its verdict
// lines, shown in full beneath).
func TestReportVerdictHeadlines(t *testing.T) {
	dir, summary := reportStudySummary(t)
	var sum study.Summary
	if err := json.Unmarshal(summary, &sum); err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(dir, view.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	p := string(page)
	heads := regexp.MustCompile(`<p class="head"><b>(.*?)</b> <span class="price">\((.*?)\)</span>: <strong>use (.*?)</strong> — (.*?)</p>`).FindAllStringSubmatch(p, -1)
	if len(sum.Verdicts) < 3 || len(heads) != len(sum.Verdicts) {
		t.Fatalf("%d verdict lines (want one per λ and the pooled one, at least 3), %d headlines", len(sum.Verdicts), len(heads))
	}
	if first, verdict := strings.Index(p, `<p class="head">`), strings.Index(p, "<h2>What ran</h2>"); first < 0 || first > verdict {
		t.Error("the verdict is not at the top of the page, before what ran")
	}
	lines := regexp.MustCompile(`<p class="line">(.*?)</p>`).FindAllStringSubmatch(p, -1)
	if len(lines) != len(sum.Verdicts) {
		t.Fatalf("%d verdict lines in the page, %d in the summary", len(lines), len(sum.Verdicts))
	}
	for i, v := range sum.Verdicts {
		h := heads[i]
		who := v.Policy
		if v.Lambda == nil {
			who = "All λ pooled"
		}
		if html.UnescapeString(h[1]) != who || html.UnescapeString(h[3]) != v.Use {
			t.Errorf("headline %d: %q uses %q, want %q uses %q", i, h[1], h[3], who, v.Use)
		}
		reason := html.UnescapeString(h[4])
		if strings.ContainsAny(reason, "()[]") || !strings.HasSuffix(reason, ".") || strings.Contains(reason, "this policy") {
			t.Errorf("headline %d: the reason %q should be words without figures, naming the policy", i, reason)
		}
		if got := html.UnescapeString(lines[i][1]); got != v.Line {
			t.Errorf("verdict %d: the page's line %q, want the study's %q", i, got, v.Line)
		}
	}
}

var hrefRE = regexp.MustCompile(`(?:href|src)="([^"]*)"`)

// Every link of report.html opens something the study wrote: a file in
// its directory, or an element of the page (by id).
func TestReportLinksResolve(t *testing.T) {
	dir := reportStudy(t)
	page, err := os.ReadFile(filepath.Join(dir, view.ReportName))
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for _, m := range regexp.MustCompile(` id="([^"]*)"`).FindAllStringSubmatch(string(page), -1) {
		ids[html.UnescapeString(m[1])] = true
	}
	links := hrefRE.FindAllStringSubmatch(string(page), -1)
	if len(links) == 0 {
		t.Fatal("report.html has no link: the test checks nothing")
	}
	for _, m := range links {
		ref := html.UnescapeString(m[1])
		file, frag, _ := strings.Cut(ref, "#")
		if file != "" {
			if strings.Contains(file, ":") || strings.Contains(file, "/") {
				t.Errorf("link %q leaves the study's directory", ref)
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, file)); err != nil {
				t.Errorf("link %q: the study wrote no %s", ref, file)
			}
			if frag != "" {
				t.Errorf("link %q: a fragment into another page is not checked", ref)
			}
			continue
		}
		if !ids[frag] {
			t.Errorf("link %q: the page has no element with that id", ref)
		}
	}
}

// A verdict's names reach the page escaped, in the headline as in the
// line; a line of another shape than the study writes shows as it is,
// with no headline made up from it.
func TestReportVerdictEscaped(t *testing.T) {
	sum := `{"env":"sim","scopes":[{"name":"all","level":0.95,"policies":[{"policy":"<i>p</i>","lambda":0,"rows":1,"accuracy":{"estimate":1,"low":1,"high":1},"tokens_per_task":5}]}],
	"verdicts":[{"policy":"<i>p</i>","use":"<script>u</script>","line":"<i>p</i>, played greedy — verdict (λ 0, accuracy alone): use <script>u</script>: it beats <b>m</b> (figures); this policy wins."},
	{"policy":"all λ","use":"x","line":"<b>not</b> a verdict line"}]}`
	var b strings.Builder
	if err := view.WriteReport(&b, []byte(sum), []byte(`[]`)); err != nil {
		t.Fatal(err)
	}
	p := b.String()
	for _, bad := range []string{"<i>p", "<script>u", "<b>m", "<b>not"} {
		if strings.Contains(p, bad) {
			t.Errorf("page holds %q unescaped", bad)
		}
	}
	heads := regexp.MustCompile(`<p class="head">(.*?)</p>`).FindAllStringSubmatch(p, -1)
	if len(heads) != 1 {
		t.Fatalf("%d headlines, want 1 (the second line is not a verdict's)", len(heads))
	}
	want := "<i>p</i> (λ 0, accuracy alone): use <script>u</script> — it beats <b>m</b>; <i>p</i> wins."
	if got := html.UnescapeString(regexp.MustCompile(`<[^>]+>`).ReplaceAllString(heads[0][1], "")); got != want {
		t.Errorf("headline %q, want %q", got, want)
	}
	if !strings.Contains(p, "&lt;b&gt;not&lt;/b&gt; a verdict line") {
		t.Error("the line of another shape is not shown as it is")
	}
}
