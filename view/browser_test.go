package view_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/internal/browser"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/view"
)

// The browser test renders each page mpdf writes in headless Chromium
// (Debian's package; .ci/run installs it): the page loads with no console
// error, warning or uncaught exception, its filter (the hook of package
// browser: input #q, count #count) shows the expected number of rows on a
// known input, and a PNG of the page is left in testenv.Artifacts for a
// person to look at.

// shown types term into the page's filter, as a user would, and returns
// the number of rows #count then says are shown. A page may get ready
// after its load event (it may unpack its data first): until then #count
// does not start with a digit, and shown waits (up to browser.CallTimeout).
func shown(t *testing.T, p *browser.Page, term string) int {
	t.Helper()
	js := fmt.Sprintf(`new Promise(function (resolve, reject) {
		var count = document.getElementById("count"), q = document.getElementById("q"), tries = 0;
		(function wait() {
			if (!/^\d/.test(count.textContent)) {
				if (++tries > 2000) { reject(new Error("#count never showed a number: " + count.textContent)); return; }
				setTimeout(wait, 20);
				return;
			}
			q.value = %s;
			q.dispatchEvent(new Event("input", {bubbles: true}));
			setTimeout(function () { resolve(count.textContent); }, 0);
		})();
	})`, strconv.Quote(term))
	var count string
	if err := p.Eval(js, &count); err != nil {
		t.Fatal(err)
	}
	n, err := strconv.Atoi(strings.Fields(count + " x")[0])
	if err != nil {
		t.Fatalf("#count says %q after filtering by %q: want it to start with the number of rows shown", count, term)
	}
	return n
}

// openClean opens path and fails on anything the page reported.
func openClean(t *testing.T, p *browser.Page, path string) {
	t.Helper()
	if err := p.Open("file://" + path); err != nil {
		t.Fatal(err)
	}
	// A round trip after the load event, so that late reports arrive.
	if err := p.Eval("document.readyState", nil); err != nil {
		t.Fatal(err)
	}
	if probs := p.Problems(); len(probs) > 0 {
		t.Errorf("%s reported in the browser:\n%s", filepath.Base(path), strings.Join(probs, "\n"))
	}
}

// screenshot saves the whole page as a PNG in the artifacts directory.
func screenshot(t *testing.T, p *browser.Page, name string) {
	t.Helper()
	png, err := p.Screenshot(true)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png, []byte("\x89PNG\r\n\x1a\n")) {
		t.Fatalf("%s: the screenshot is not a PNG", name)
	}
	out := filepath.Join(testenv.Artifacts(t), name)
	if err := os.WriteFile(out, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s (%d bytes)", out, len(png))
}

func TestBrowser(t *testing.T) {
	chromium := testenv.Chromium(t)
	debates := testenv.Shared(t, "data", "debates")
	dir := t.TempDir()
	b, err := browser.Start(chromium, filepath.Join(dir, "profile"))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	p, err := b.NewPage(1280, 900)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("view", func(t *testing.T) { testViewer(t, b, dir, debates) })

	t.Run("run", func(t *testing.T) {
		path, err := view.WriteRunPage(trainRun(t), "")
		if err != nil {
			t.Fatal(err)
		}
		openClean(t, p, path)
		var n int
		if err := p.Eval(`document.querySelectorAll("figure.chart svg polyline, figure.chart svg path").length`, &n); err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			t.Error("the run page draws no curve")
		}
		screenshot(t, p, "run.png")
	})

	t.Run("report", func(t *testing.T) {
		sdir := reportStudy(t)
		md, err := os.ReadFile(filepath.Join(sdir, study.ReportName))
		if err != nil {
			t.Fatal(err)
		}
		// Expected rows from report.md: policy rows (8 cells) whose policy,
		// difference rows (5 cells) whose learned or other policy contains
		// the term.
		term := "λ=0.5"
		_, rows := mdTables(string(md))
		want, all := 0, 0
		for _, r := range rows {
			if r[0] == "policy" || r[0] == "learned" {
				continue
			}
			all++
			if strings.Contains(r[0], term) || len(r) == 5 && strings.Contains(r[1], term) {
				want++
			}
		}
		openClean(t, p, filepath.Join(sdir, view.ReportName))
		if n := shown(t, p, ""); n != all {
			t.Errorf("unfiltered: %d rows shown, want %d", n, all)
		}
		if n := shown(t, p, term); n != want || want == 0 {
			t.Errorf("filtered by %q: %d rows shown, want %d", term, n, want)
		}
		shown(t, p, "")
		// Hovering a point of the pooled chart shows its numbers below it.
		var pt struct {
			X, Y float64
			Tip  string
		}
		if err := p.Eval(`(function () {
			var g = document.querySelector("#chart-s0 .pt"), r = g.querySelector("circle,rect").getBoundingClientRect();
			var x = r.left + r.width / 2, y = r.top + r.height / 2;
			// the point drawn on top there (a learned policy may sit on a baseline)
			return {X: x, Y: y, Tip: document.elementFromPoint(x, y).closest(".pt").dataset.tip};
		})()`, &pt); err != nil {
			t.Fatal(err)
		}
		if err := p.Hover(pt.X, pt.Y); err != nil {
			t.Fatal(err)
		}
		var tip string
		if err := p.Eval(`document.getElementById("tip-s0").textContent`, &tip); err != nil {
			t.Fatal(err)
		}
		if tip == "" || tip != pt.Tip || !regexp.MustCompile(`accuracy 0\.\d{3} \[`).MatchString(tip) {
			t.Errorf("hovering a point shows %q, want its numbers %q", tip, pt.Tip)
		}
		screenshot(t, p, "report.png")
	})
}
