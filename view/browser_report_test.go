package view_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/browser"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/view"
)

// What a user sees of a study's report.html at 1400 px, in headless
// Chromium: the verdict's headlines on the first screen, one per λ and the
// pooled one; the charts' labels as rendered (their text's boxes) apart
// from each other and inside the plot; every link opening an element of
// the page or a file the study wrote. Screenshots of the page and of its
// first chart are left in testenv.Artifacts.
func TestBrowserReportReadable(t *testing.T) {
	chromium := testenv.Chromium(t)
	sdir, summary := reportStudySummary(t)
	var sum study.Summary
	if err := json.Unmarshal(summary, &sum); err != nil {
		t.Fatal(err)
	}
	b, err := browser.Start(chromium, filepath.Join(t.TempDir(), "profile"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(1400, 900)
	if err != nil {
		t.Fatal(err)
	}
	openClean(t, p, filepath.Join(sdir, view.ReportName))
	seeHeadlines(t, p, &sum)
	seeLabelsApart(t, p, &sum)
	seeLinksOpen(t, p, &sum)
	shot, err := p.Screenshot(false)
	if err != nil {
		t.Fatal(err)
	}
	saveArtifact(t, "report-1400-top.png", shot)
	screenshot(t, p, "report-1400.png")
	if err := p.Eval(`document.getElementById("s0").scrollIntoView()`, nil); err != nil {
		t.Fatal(err)
	}
	if shot, err = p.Screenshot(false); err != nil {
		t.Fatal(err)
	}
	saveArtifact(t, "report-1400-chart.png", shot)
}

// seeHeadlines checks the verdict's headlines on the first screen, one per
// verdict line, each saying which policy to use.
func seeHeadlines(t *testing.T, p *browser.Page, sum *study.Summary) {
	t.Helper()
	var top struct {
		Heads  []string
		Bottom float64 // of the last headline, in CSS pixels from the top
		Screen float64
	}
	if err := p.Eval(`(function () {
		var hs = Array.prototype.slice.call(document.querySelectorAll("#verdict .head"));
		return {Heads: hs.map(function (h) { return h.textContent; }),
			Bottom: hs.length ? hs[hs.length - 1].getBoundingClientRect().bottom : 0, Screen: window.innerHeight};
	})()`, &top); err != nil {
		t.Fatal(err)
	}
	if len(top.Heads) != len(sum.Verdicts) || len(top.Heads) < 3 {
		t.Fatalf("%d verdict headlines shown, want the study's %d (one per λ and the pooled one)", len(top.Heads), len(sum.Verdicts))
	}
	for i, h := range top.Heads {
		if !strings.Contains(h, ": use "+sum.Verdicts[i].Use+" — ") {
			t.Errorf("headline %d %q does not say to use %s", i, h, sum.Verdicts[i].Use)
		}
	}
	if top.Bottom <= 0 || top.Bottom > top.Screen {
		t.Errorf("the last headline ends at %.0f px, below the first screen (%.0f px)", top.Bottom, top.Screen)
	}
}

// seeLabelsApart checks each chart's labels as rendered: inside the plot's
// frame, no two overlapping.
func seeLabelsApart(t *testing.T, p *browser.Page, sum *study.Summary) {
	t.Helper()
	type rect struct{ L, T, R, B float64 }
	var charts []struct {
		ID     string
		Frame  rect
		Labels []struct {
			Text string
			Box  rect
		}
	}
	if err := p.Eval(`Array.prototype.map.call(document.querySelectorAll("svg.chart"), function (svg) {
		var r = function (e) { var b = e.getBoundingClientRect(); return {L: b.left, T: b.top, R: b.right, B: b.bottom}; };
		return {ID: svg.id, Frame: r(svg.querySelector("rect.frame")),
			Labels: Array.prototype.map.call(svg.querySelectorAll("text.lbl"), function (t) { return {Text: t.textContent, Box: r(t)}; })};
	})`, &charts); err != nil {
		t.Fatal(err)
	}
	if len(charts) != len(sum.Scopes) {
		t.Fatalf("%d charts shown, want one per scope (%d)", len(charts), len(sum.Scopes))
	}
	const slack = 0.5 // CSS pixels: a glyph's box may round up
	for _, c := range charts {
		if len(c.Labels) < 3 {
			t.Errorf("%s: %d labels", c.ID, len(c.Labels))
		}
		for i, l := range c.Labels {
			if l.Box.L < c.Frame.L-slack || l.Box.R > c.Frame.R+slack || l.Box.T < c.Frame.T-slack || l.Box.B > c.Frame.B+slack {
				t.Errorf("%s: label %q at %+v leaves the plot %+v", c.ID, l.Text, l.Box, c.Frame)
			}
			for _, m := range c.Labels[:i] {
				if l.Box.L < m.Box.R-slack && m.Box.L < l.Box.R-slack && l.Box.T < m.Box.B-slack && m.Box.T < l.Box.B-slack {
					t.Errorf("%s: labels %q %+v and %q %+v overlap on the screen", c.ID, m.Text, m.Box, l.Text, l.Box)
				}
			}
		}
	}
}

// seeLinksOpen checks that every link opens an element of the page (the
// study writes no other page to link to), and that there is one to each
// scope.
func seeLinksOpen(t *testing.T, p *browser.Page, sum *study.Summary) {
	t.Helper()
	var links []struct {
		Href string
		Ok   bool
	}
	if err := p.Eval(`Array.prototype.map.call(document.querySelectorAll("a[href]"), function (a) {
		var h = a.getAttribute("href");
		return {Href: h, Ok: h.charAt(0) === "#" && document.getElementById(decodeURIComponent(h.slice(1))) !== null};
	})`, &links); err != nil {
		t.Fatal(err)
	}
	if len(links) < len(sum.Scopes) {
		t.Errorf("%d links, want at least one to each of the %d scopes", len(links), len(sum.Scopes))
	}
	for _, l := range links {
		if !l.Ok {
			t.Errorf("link %q opens no element of the page", l.Href)
		}
	}
}

// saveArtifact keeps a screenshot of the visible screen in the artifacts
// directory.
func saveArtifact(t *testing.T, name string, png []byte) {
	t.Helper()
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("%s: the screenshot is not a PNG", name)
	}
	out := filepath.Join(testenv.Artifacts(t), name)
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", out, len(png))
}
