package view_test

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/browser"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/view"
)

// TestBrowserRunPages opens the run page and the index of runs in
// headless Chromium at 1400 px, as a user would, and checks what shows:
// the verdict's sentence, the held-out points drawn, the verdict's labels
// apart, the smoothing slider redrawing the curves (at 0, the raw values),
// the viewer link opening the viewer; on the index, a row per run and a
// checkbox hiding and showing that run's lines. Screenshots
// run-page.png and runs-index.png go to testenv.Artifacts.
func TestBrowserRunPages(t *testing.T) {
	chromium := testenv.Chromium(t)
	tmp := t.TempDir()
	b, err := browser.Start(chromium, filepath.Join(tmp, "profile"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(1400, 900)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("run", func(t *testing.T) { browserRunPage(t, p) })
	t.Run("runs", func(t *testing.T) { browserRunsIndex(t, p) })
}

// browserRunPage checks the run page as TestBrowserRunPages says.
func browserRunPage(t *testing.T, p *browser.Page) {
	{
		dir, res := trainRunResult(t)
		if _, err := view.WriteRunViewer(dir, res); err != nil {
			t.Fatal(err)
		}
		path, err := view.WriteRunPage(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		openClean(t, p, path)
		ef := readEval(t, dir)
		var sentence string
		if err := p.Eval(`document.getElementById("verdict-sentence").textContent`, &sentence); err != nil {
			t.Fatal(err)
		}
		if sentence != ef.Verdict.Line() {
			t.Errorf("the verdict shows %q, want %q", sentence, ef.Verdict.Line())
		}
		// The held-out points, drawn inside their chart.
		l, err := run.ReadLearning(dir)
		if err != nil {
			t.Fatal(err)
		}
		var drawn int
		if err := p.Eval(`(function () {
			var svg = document.querySelector("#heldout-accuracy svg").getBoundingClientRect(), n = 0;
			document.querySelectorAll("#heldout-accuracy circle.pt").forEach(function (c) {
				var r = c.getBoundingClientRect();
				if (r.width > 0 && r.left >= svg.left && r.right <= svg.right && r.top >= svg.top && r.bottom <= svg.bottom) n++;
			});
			return n;
		})()`, &drawn); err != nil {
			t.Fatal(err)
		}
		if drawn != len(l.HeldOut) || drawn < 2 {
			t.Errorf("%d held-out points visible, metrics.jsonl has %d", drawn, len(l.HeldOut))
		}
		// The verdict's labels: as many as its rows, none over another.
		var overlaps []string
		if err := p.Eval(`(function () {
			var ls = Array.from(document.querySelectorAll("#verdict-chart text.vl")).map(function (e) { return [e.textContent, e.getBoundingClientRect()]; }), out = [];
			for (var i = 0; i < ls.length; i++) for (var j = i + 1; j < ls.length; j++) {
				var a = ls[i][1], b = ls[j][1];
				if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) out.push(ls[i][0] + " / " + ls[j][0]);
			}
			return ls.length === 0 ? ["no labels"] : out;
		})()`, &overlaps); err != nil {
			t.Fatal(err)
		}
		if len(overlaps) > 0 {
			t.Errorf("verdict labels overlap: %q", overlaps)
		}
		// The smoothing: the slider redraws the reward curve; at 0 it is
		// the raw line.
		var sm struct{ Before, After, Raw string }
		if err := p.Eval(`(function () {
			var sm = document.querySelector("#reward polyline.sm"), raw = document.querySelector("#reward polyline.raw"), s = document.getElementById("smooth");
			var before = sm.getAttribute("points");
			s.value = "0";
			s.dispatchEvent(new Event("input", {bubbles: true}));
			return {Before: before, After: sm.getAttribute("points"), Raw: raw.getAttribute("points")};
		})()`, &sm); err != nil {
			t.Fatal(err)
		}
		if sm.Before == sm.After {
			t.Error("moving the smoothing slider to 0 left the curve as it was")
		}
		if d := maxPointDistance(t, sm.After, sm.Raw); d > 0.06 {
			t.Errorf("smoothing 0 draws a curve %.2f px from the raw one, want it on it", d)
		}
		if err := p.Eval(`(function () { var s = document.getElementById("smooth"); s.value = "0.9"; s.dispatchEvent(new Event("input", {bubbles: true})); return 1; })()`, nil); err != nil {
			t.Fatal(err)
		}
		screenshot(t, p, "run-page.png")
		// The viewer link opens the viewer, which shows its questions.
		var href string
		if err := p.Eval(`document.getElementById("viewer-link").href`, &href); err != nil {
			t.Fatal(err)
		}
		if href != "file://"+filepath.Join(dir, view.RunViewName) {
			t.Errorf("the viewer link goes to %s", href)
		}
		openClean(t, p, strings.TrimPrefix(href, "file://"))
		var count string
		if err := p.Eval(`new Promise(function (resolve) {
			(function wait() { var c = document.getElementById("count"); if (!c || !/^\d/.test(c.textContent)) { setTimeout(wait, 20); return; } resolve(c.textContent); })();
		})`, &count); err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(count, fmt.Sprintf("%d ", res.EvalTasks)) {
			t.Errorf("the viewer shows %q, want the evaluation's %d questions", count, res.EvalTasks)
		}
	}
}

// browserRunsIndex checks the index of runs as TestBrowserRunPages says.
func browserRunsIndex(t *testing.T, p *browser.Page) {
	{
		dir := runsDir(t)
		idx, err := view.WriteRunsIndex(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		openClean(t, p, idx.Path)
		var rows, skipped int
		if err := p.Eval(`document.querySelectorAll("#runs tbody tr").length`, &rows); err != nil {
			t.Fatal(err)
		}
		if err := p.Eval(`document.querySelectorAll("#skipped li").length`, &skipped); err != nil {
			t.Fatal(err)
		}
		if rows != len(idx.Runs) || rows != 2 || skipped != len(idx.Skipped) {
			t.Errorf("%d rows and %d skipped shown, want %d and %d", rows, skipped, len(idx.Runs), len(idx.Skipped))
		}
		// Unticking a run hides its lines in every chart, not the others'.
		visible := `(function () {
			var out = {};
			document.querySelectorAll("svg g[data-run]").forEach(function (g) {
				var k = g.dataset.run;
				out[k] = (out[k] || 0) + (g.getBoundingClientRect().width > 0 ? 1 : 0);
			});
			return out;
		})()`
		var before, after, again map[string]int
		if err := p.Eval(visible, &before); err != nil {
			t.Fatal(err)
		}
		toggle := `(function () { var b = document.querySelector('#pick input[data-run="r0"]'); b.click(); return b.checked; })()`
		var on bool
		if err := p.Eval(toggle, &on); err != nil {
			t.Fatal(err)
		}
		if err := p.Eval(visible, &after); err != nil {
			t.Fatal(err)
		}
		if err := p.Eval(toggle, &on); err != nil {
			t.Fatal(err)
		}
		if err := p.Eval(visible, &again); err != nil {
			t.Fatal(err)
		}
		if before["r0"] != 4 || before["r1"] != 4 || after["r0"] != 0 || after["r1"] != 4 || again["r0"] != 4 || !on {
			t.Errorf("lines visible per run: %v, after unticking r0 %v, after ticking it again %v; want 4 each, then r0's hidden", before, after, again)
		}
		screenshot(t, p, "runs-index.png")
	}
}

// maxPointDistance is the largest distance between the points of two
// SVG point lists of the same length.
func maxPointDistance(t *testing.T, a, b string) float64 {
	t.Helper()
	pa, pb := strings.Fields(a), strings.Fields(b)
	if len(pa) != len(pb) || len(pa) == 0 {
		t.Fatalf("point lists of %d and %d points", len(pa), len(pb))
	}
	worst := 0.0
	for i := range pa {
		xa, ya := point(t, pa[i])
		xb, yb := point(t, pb[i])
		worst = math.Max(worst, math.Max(math.Abs(xa-xb), math.Abs(ya-yb)))
	}
	return worst
}

func point(t *testing.T, s string) (float64, float64) {
	t.Helper()
	x, y, ok := strings.Cut(s, ",")
	fx, err1 := strconv.ParseFloat(x, 64)
	fy, err2 := strconv.ParseFloat(y, 64)
	if !ok || err1 != nil || err2 != nil {
		t.Fatalf("point %q", s)
	}
	return fx, fy
}
