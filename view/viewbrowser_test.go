package view_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/internal/browser"
	"github.com/mpdf/mpdf/view"
)

// The viewer as a user sees it (issue 37): the list shows each question's
// opening words and every policy's outcome and tokens without a click;
// three policies' columns fit side by side at 1280 and 1400 px; the
// search box finds questions by their text; a deterministic rule shows no
// π. The screenshots (view-1400.png, view-1400-open.png) are at 1400 px.

// testViewer plays majority, gate and random on one transcript file (20
// questions of Llama-3.2-3B, which gets some wrong) and checks their page
// in b.
func testViewer(t *testing.T, b *browser.Browser, dir, debates string) {
	e, rounds, err := open.Env("replay:"+debates+"/slm-debate/gsm/gsm_Llama-3.2-3B_*_agents3_*.json", open.Config{})
	if err != nil {
		t.Fatal(err)
	}
	runs, err := view.Play(e, policies(t, "majority", "gate", "random"),
		env.RunOptions{NumTasks: 20, Episodes: 1, Rounds: rounds, Seed: 7, Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := writeViewer(t, filepath.Join(dir, "view.html"), runs, "browser test")
	for _, width := range []int{1400, 1280} {
		t.Run(fmt.Sprintf("%dpx", width), func(t *testing.T) {
			p, err := b.NewPage(width, 900)
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			openClean(t, p, path)
			viewerList(t, p, runs)
			if width == 1400 {
				screenshot(t, p, "view-1400.png")
			}
			viewerColumns(t, p, []bool{true, true, false})
			if width == 1400 {
				screenshot(t, p, "view-1400-open.png")
			}
		})
	}
	p, err := b.NewPage(1400, 900)
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	t.Run("filter", func(t *testing.T) {
		openClean(t, p, path)
		viewerFilterID(t, p, runs)
		viewerFilterText(t, p, runs)
	})
	t.Run("task link", func(t *testing.T) { viewerTaskLink(t, p, path, runs[0].Episodes[0].Task) })
	t.Run("hostile", func(t *testing.T) { viewerHostile(t, p, dir) })
}

// writeViewer writes the page of runs to path.
func writeViewer(t *testing.T, path string, runs []view.Run, title string) string {
	t.Helper()
	var page bytes.Buffer
	if err := view.Write(&page, runs, view.Options{Title: title}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// rect is an element's bounding box, in CSS pixels of the viewport.
type rect struct{ Left, Right, Top, Width, Height float64 }

// whenReady is JS that waits for the page to be drawn (data-ready; with
// texts, also its texts unpacked) and then resolves to body's value.
func whenReady(texts bool, body string) string {
	cond := `document.body.dataset.ready === "1"`
	if texts {
		cond += ` && document.body.dataset.texts === "1"`
	}
	return waitThen(cond, body)
}

// waitThen is JS that waits until cond holds (up to 40 s) and then
// resolves to body's value.
func waitThen(cond, body string) string {
	return `new Promise(function (resolve, reject) {
		var tries = 0;
		(function wait() {
			if (!(` + cond + `)) {
				if (++tries > 2000) { reject(new Error("never true: ` + strings.ReplaceAll(cond, `"`, `'`) + `")); return; }
				setTimeout(wait, 20);
				return;
			}
			resolve((function () {` + body + `})());
		})();
	})`
}

// openFirst opens the first row as a click does, and waits for its
// columns (built when it opens).
func openFirst(t *testing.T, p *browser.Page) {
	t.Helper()
	if err := p.Eval(whenReady(true, `document.querySelector("details.q > summary").click(); return 0;`), nil); err != nil {
		t.Fatal(err)
	}
	if err := p.Eval(waitThen(`document.querySelector("details.q[open] .col")`, `return 0;`), nil); err != nil {
		t.Fatal(err)
	}
}

// viewerList: every row of the first page, unopened, shows its question's
// opening words within the viewport and each policy's outcome and tokens,
// the episodes' own.
func viewerList(t *testing.T, p *browser.Page, runs []view.Run) {
	t.Helper()
	var got struct {
		Width float64
		Rows  []struct {
			Open    bool
			Opening string
			Box     rect
			Chips   []string
		}
	}
	if err := p.Eval(whenReady(false, `
		var box = function (e) { var r = e.getBoundingClientRect(); return {Left: r.left, Right: r.right, Top: r.top, Width: r.width, Height: r.height}; };
		return {Width: window.innerWidth, Rows: Array.prototype.map.call(document.querySelectorAll("details.q"), function (d) {
			var o = d.querySelector("summary .qo");
			return {Open: d.open, Opening: o.textContent, Box: box(o),
				Chips: Array.prototype.map.call(d.querySelectorAll("summary .m"), function (c) { return c.textContent; })};
		})};`), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Rows) != len(runs[0].Episodes) {
		t.Fatalf("%d rows in the list, %d questions played", len(got.Rows), len(runs[0].Episodes))
	}
	for i, r := range got.Rows {
		q := runs[0].Episodes[i].Question
		words := strings.Fields(q)
		head := strings.Join(words[:min(6, len(words))], " ")
		if r.Open || !strings.HasPrefix(r.Opening, head) || r.Box.Width <= 0 || r.Box.Height < 10 || r.Box.Left < 0 || r.Box.Right > got.Width {
			t.Errorf("row %d: opening %q at %+v (open %v) in a %.0f px viewport: want %q… visible unopened", i, r.Opening, r.Box, r.Open, got.Width, head)
		}
		var want []string
		for _, run := range runs {
			want = append(want, chip(run.Policy, run.Episodes[i]))
		}
		if strings.Join(r.Chips, "|") != strings.Join(want, "|") {
			t.Errorf("row %d shows %q, the episodes %q", i, r.Chips, want)
		}
	}
}

// chip is what a row says of a policy's one episode: its name, ✓ or ✗ by
// its final team answer, and its tokens.
func chip(policy string, ep *data.Episode) string {
	mark := "✗"
	if data.TeamAnswer(ep.Rounds[len(ep.Rounds)-1].Turns) == ep.Gold {
		mark = "✓"
	}
	tokens := 0
	for _, rd := range ep.Rounds {
		for _, tu := range rd.Turns {
			tokens += tu.Tokens
		}
	}
	return fmt.Sprintf("%s %s · %d tok", policy, mark, tokens)
}

// viewerColumns opens the first row, as a click does, and checks that
// its policies' columns are all within the viewport, side by side, none
// overflowing, and that a deterministic rule (rule[k]) shows no π or p=
// while the others do.
func viewerColumns(t *testing.T, p *browser.Page, rule []bool) {
	t.Helper()
	var got struct {
		Width, Scroll float64
		Cols          []struct {
			Box            rect
			Scroll, Client float64
			Head           string
			Pi             bool
		}
	}
	openFirst(t, p)
	if err := p.Eval(whenReady(true, `
		var box = function (e) { var r = e.getBoundingClientRect(); return {Left: r.left, Right: r.right, Top: r.top, Width: r.width, Height: r.height}; };
		return {Width: window.innerWidth, Scroll: document.documentElement.scrollWidth,
			Cols: Array.prototype.map.call(document.querySelectorAll("details.q[open] .col"), function (c) {
				return {Box: box(c), Scroll: c.scrollWidth, Client: c.clientWidth, Head: c.querySelector("h3").textContent,
					Pi: /π=|p=/.test(c.textContent)};
			})};`), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Cols) != len(rule) {
		t.Fatalf("%d columns in the opened row, want %d", len(got.Cols), len(rule))
	}
	if got.Scroll > got.Width {
		t.Errorf("the page is %.0f px wide in a %.0f px viewport", got.Scroll, got.Width)
	}
	for k, c := range got.Cols {
		if c.Box.Left < 0 || c.Box.Right > got.Width || c.Box.Width < 200 || c.Box.Top != got.Cols[0].Box.Top {
			t.Errorf("column %d (%s) at %+v in a %.0f px viewport: want it beside the others, within it", k, c.Head, c.Box, got.Width)
		}
		if c.Scroll > c.Client {
			t.Errorf("column %d (%s) overflows: %.0f px in %.0f", k, c.Head, c.Scroll, c.Client)
		}
		if c.Pi == rule[k] {
			t.Errorf("column %d (%s): shows probabilities %v, want %v (deterministic rule %v)", k, c.Head, c.Pi, !rule[k], rule[k])
		}
	}
}

// viewerFilterID filters by the start of the first task id ("gsm8k:4" of
// "gsm8k:4ec5e5a37705"), which no source (file names) or question
// contains, so the expected rows are the tasks whose id contains it.
func viewerFilterID(t *testing.T, p *browser.Page, runs []view.Run) {
	t.Helper()
	first := runs[0].Episodes[0]
	colon := strings.IndexByte(first.Task, ':')
	if colon < 0 {
		t.Fatalf("task id %q has no kind prefix", first.Task)
	}
	term := first.Task[:colon+2]
	want := 0
	seen := map[string]bool{}
	for _, ep := range runs[0].Episodes {
		if strings.Contains(ep.Source, term) || strings.Contains(strings.ToLower(ep.Question), term) {
			t.Fatalf("the source %.80q or question of %s contains the filter term %q: pick another", ep.Source, ep.Task, term)
		}
		if !seen[ep.Task] {
			seen[ep.Task] = true
			if strings.Contains(ep.Task, term) {
				want++
			}
		}
	}
	if want == 0 || want == len(seen) {
		t.Fatalf("%d of %d tasks match %q: the filter would not be tested", want, len(seen), term)
	}
	if n := shown(t, p, ""); n != len(seen) {
		t.Errorf("unfiltered: %d questions shown, want %d", n, len(seen))
	}
	if n := shown(t, p, strings.ToUpper(term)); n != want {
		t.Errorf("filtered by %q: %d questions shown, want %d", term, n, want)
	}
	shown(t, p, "")
}

// viewerFilterText searches for a word of the questions' text that some
// question holds only past its opening words (so the search reads the
// whole text), and no id, gold, model or source holds.
func viewerFilterText(t *testing.T, p *browser.Page, runs []view.Run) {
	t.Helper()
	eps := runs[0].Episodes
	term, want := textTerm(eps)
	if term == "" {
		t.Fatal("no word of the questions fits the test: some but not all hold it, one past its opening")
	}
	if err := p.Eval(whenReady(true, `return 0;`), nil); err != nil {
		t.Fatal(err)
	}
	if n := shown(t, p, strings.ToUpper(term)); n != want {
		t.Errorf("searched for %q: %d questions shown, want the %d whose text holds it", term, n, want)
	}
	shown(t, p, "")
}

// textTerm is the first word (5 letters or more) of eps' questions that
// 1 < n < len(eps) questions hold, one of them past its first 250 bytes,
// and no task id, gold, source or model name does; and n.
func textTerm(eps []*data.Episode) (string, int) {
	var meta strings.Builder
	for _, ep := range eps {
		fmt.Fprintf(&meta, "%s\n%s\n%s\nllama-3.2-3b gsm8k\n", ep.Task, ep.Gold, ep.Source)
	}
	metas := strings.ToLower(meta.String())
	for _, ep := range eps {
		for _, w := range strings.FieldsFunc(strings.ToLower(ep.Question), func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len(w) < 5 || strings.Contains(metas, w) {
				continue
			}
			n, late := 0, false
			for _, e := range eps {
				q := strings.ToLower(e.Question)
				if i := strings.Index(q, w); i >= 0 {
					n++
					late = late || i > 250
				}
			}
			if n > 1 && n < len(eps) && late {
				return w, n
			}
		}
	}
	return "", 0
}

// viewerTaskLink: a study report's link, view.html#task=ID, opens on that
// question.
func viewerTaskLink(t *testing.T, p *browser.Page, path, task string) {
	if err := p.Open("about:blank"); err != nil {
		t.Fatal(err)
	}
	openClean(t, p, path+"#task="+task)
	var opened struct {
		Count string
		Open  int
	}
	if err := p.Eval(whenReady(false, `return {Count: document.getElementById("count").textContent, Open: document.querySelectorAll("details.q[open]").length};`), &opened); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(opened.Count, "1 of ") || opened.Open != 1 {
		t.Errorf("view.html#task=%s: #count %q and %d questions open, want 1 shown and open", task, opened.Count, opened.Open)
	}
}

// pwn is a question that would mark the page if it ran as markup.
const pwn = `</script><script>document.body.dataset.pwned="script"</script><img src=x onerror="document.body.dataset.pwned='img'"> How many?`

// viewerHostile: a question, answer and policy name holding markup show
// as text in the list and the opened row, and nothing of it runs.
func viewerHostile(t *testing.T, p *browser.Page, dir string) {
	ep := episode("e1", "t1", pwn, [][]string{{pwn, "1"}, {pwn, pwn}}, pwn)
	ep.Policy = pwn
	path := writeViewer(t, filepath.Join(dir, "hostile.html"), view.Group([]*data.Episode{ep}), pwn)
	openClean(t, p, path)
	var got struct {
		Opening, Chip, Pwned string
		Imgs, Scripts        int
	}
	openFirst(t, p)
	if err := p.Eval(whenReady(true, `
		return {Opening: document.querySelector(".qo").textContent, Chip: document.querySelector("summary .m b").textContent,
			Pwned: document.body.dataset.pwned || "", Imgs: document.querySelectorAll("img").length,
			Scripts: document.querySelectorAll("script").length};`), &got); err != nil {
		t.Fatal(err)
	}
	if got.Opening != pwn || got.Chip != pwn || got.Pwned != "" || got.Imgs != 0 || got.Scripts != 4 {
		t.Errorf("hostile question: opening %q, policy %q, pwned %q, %d img, %d script elements: want the text as text, nothing run, no img, the page's 4 scripts",
			got.Opening, got.Chip, got.Pwned, got.Imgs, got.Scripts)
	}
}
