package view_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/open"
	"github.com/mpdf/mpdf/internal/testenv"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/view"
)

// policies are heuristics the replay plays; random samples, so a seed
// that differed between the page and Evaluate would show.
func policies(t *testing.T, names ...string) []metapolicy.Policy {
	t.Helper()
	var pols []metapolicy.Policy
	for _, n := range names {
		p, err := metapolicy.NewHeuristic(n)
		if err != nil {
			t.Fatal(err)
		}
		pols = append(pols, p)
	}
	return pols
}

var summaryRE = regexp.MustCompile(`(?s)<script type="application/json" id="summary">(.*?)</script>`)

// summaryOf reads the JSON data island of a page.
func summaryOf(t *testing.T, page []byte) []view.Summary {
	t.Helper()
	m := summaryRE.FindSubmatch(page)
	if m == nil {
		t.Fatal("page has no summary data island")
	}
	var s []view.Summary
	if err := json.Unmarshal(m[1], &s); err != nil {
		t.Fatalf("summary data island: %v\n%s", err, m[1])
	}
	return s
}

// TestSameNumbersAsEval: the accuracy, interval and tokens per task the
// page embeds for each policy are env.Evaluate's on the same replay,
// tasks and seed.
func TestSameNumbersAsEval(t *testing.T) {
	spec := "replay:" + testenv.Shared(t, "data", "debates") + "/slm-debate/gsm/*agents3*.json"
	e, rounds, err := open.Env(spec, open.Config{})
	if err != nil {
		t.Fatal(err)
	}
	pols := policies(t, "majority", "debate", "gate", "random")
	opts := env.RunOptions{NumTasks: 40, Episodes: 2, Rounds: rounds, Seed: 7, Workers: 2}
	want, err := env.Evaluate(e, pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := view.Play(e, pols, opts)
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := view.Write(&page, runs, view.Options{Title: "t"}); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(page.Bytes(), []byte("ZgotmplZ")) {
		t.Error("html/template refused a value (ZgotmplZ in the page): an attribute it reads as a URL or script")
	}
	got := summaryOf(t, page.Bytes())
	if len(got) != len(want) {
		t.Fatalf("%d policies in the page, %d evaluated", len(got), len(want))
	}
	distinct := map[float64]bool{}
	for i, w := range want {
		g := got[i]
		if g.Policy != w.Policy || g.Episodes != w.Episodes || g.Tasks != w.Tasks ||
			g.Accuracy != w.Accuracy || g.CILow != w.CILow || g.CIHigh != w.CIHigh ||
			g.Round0Accuracy != w.Round0Accuracy || g.TokensPerTask != w.TokensPerTask || g.Actions != w.Actions {
			t.Errorf("policy %d: page %+v, eval %+v", i, g, w)
		}
		distinct[w.TokensPerTask] = true
	}
	if len(distinct) < 3 {
		t.Errorf("the policies spent alike (%v): the comparison shows little", distinct)
	}
	// The table a person reads shows the same accuracy.
	for _, w := range want {
		cell := "<td>" + html.EscapeString(w.Policy) + "</td><td>" // name cell then counts
		if !bytes.Contains(page.Bytes(), []byte(cell)) {
			t.Errorf("summary table has no row for %s", w.Policy)
		}
	}
	sameStrip(t, page.Bytes(), want)
	u, err := view.Unpack(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	sameRows(t, u, want)
}

// stripRE is one policy's line of the summary strip: name, accuracy and
// interval (the title), the accuracy bar and interval line, the accuracy
// shown, the tokens bar and the tokens shown.
var stripRE = regexp.MustCompile(`<span class="pn" title="[^"]*">([^<]*)</span><span class="track" title="accuracy ([^,]*), 95% CI ([^–]*)–([^"]*)"><span class="fill acc" style="width:([0-9.]+)%"></span><span class="ci" style="left:([0-9.]+)%;width:([0-9.]+)%"></span></span><span class="val">([^<]*)</span><span class="track"><span class="fill tok" style="width:([0-9.]+)%"></span></span><span class="val">([^<]*)</span>`)

// sameStrip: the summary strip's figures and bars are eval's numbers:
// accuracy and interval as the table prints them, the bars' lengths the
// accuracy and the tokens against the most any policy spent.
func sameStrip(t *testing.T, page []byte, want env.Results) {
	t.Helper()
	lines := stripRE.FindAllSubmatch(page, -1)
	if len(lines) != len(want) {
		t.Fatalf("%d lines in the summary strip, %d policies evaluated", len(lines), len(want))
	}
	most := 0.0
	for _, w := range want {
		most = math.Max(most, w.TokensPerTask)
	}
	pct := func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	num := func(b []byte) float64 {
		x, err := strconv.ParseFloat(string(b), 64)
		if err != nil {
			t.Fatalf("strip: %q is not a number", b)
		}
		return x
	}
	for i, w := range want {
		l := lines[i]
		got := []string{html.UnescapeString(string(l[1])), string(l[2]), string(l[3]), string(l[4]), string(l[8]), string(l[10])}
		exp := []string{w.Policy, pct(w.Accuracy), pct(w.CILow), pct(w.CIHigh), pct(w.Accuracy), fmt.Sprintf("%.1f", w.TokensPerTask)}
		if !slices.Equal(got, exp) {
			t.Errorf("strip line %d shows %q, eval %q", i, got, exp)
		}
		bars := [][2]float64{{num(l[5]), 100 * w.Accuracy}, {num(l[6]), 100 * w.CILow}, {num(l[7]), 100 * (w.CIHigh - w.CILow)}, {num(l[9]), 100 * w.TokensPerTask / most}}
		for j, b := range bars {
			if math.Abs(b[0]-b[1]) > 0.05 {
				t.Errorf("strip line %d (%s): bar %d is %.1f%% long, want %.2f%%", i, w.Policy, j, b[0], b[1])
			}
		}
	}
}

// sameRows: the list's per-question outcomes and tokens add up to eval's
// accuracy and tokens per episode for every policy.
func sameRows(t *testing.T, u *view.Unpacked, want env.Results) {
	t.Helper()
	for k, w := range want {
		var correct, scored int
		var tokens int64
		for _, r := range u.Rows {
			correct += r.Correct[k]
			scored += r.Scored[k]
			tokens += r.Tokens[k]
		}
		if acc := float64(correct) / float64(scored); acc != w.Accuracy || scored != w.Scored {
			t.Errorf("%s: the rows say %d of %d right (%v), eval %d of %d (%v)", w.Policy, correct, scored, acc, w.Correct, w.Scored, w.Accuracy)
		}
		if tok := float64(tokens) / float64(w.Episodes); tok != w.TokensPerTask {
			t.Errorf("%s: the rows' tokens make %v per episode, eval %v", w.Policy, tok, w.TokensPerTask)
		}
	}
}

// hostile is a model text that would run script if it were not escaped.
const hostile = `</script><script>alert(1)</script><img src=x onerror="alert(2)">`

func episode(id, task, gold string, answers [][]string, text string) *data.Episode {
	ep := &data.Episode{Kind: data.KindEpisode, ID: id, Task: task, Question: text, Gold: gold, Source: "test", Policy: "p", Agents: len(answers[0])}
	for r, as := range answers {
		var rd data.Round
		for _, a := range as {
			tu := data.Turn{Answer: a, Tokens: 10, Text: text}
			if r > 0 {
				act := metapolicy.Refine
				lp := math.Log(0.25)
				tu.Action, tu.LogProb = &act, &lp
			}
			rd.Turns = append(rd.Turns, tu)
		}
		ep.Rounds = append(ep.Rounds, rd)
	}
	return ep
}

// TestEscapesModelText: a text, question, answer or name that holds markup
// is never markup in the page: escaped in the HTML, packed in the data
// islands (nothing but base64 there), and read back intact.
func TestEscapesModelText(t *testing.T) {
	ep := episode("e1", hostile, hostile, [][]string{{hostile, "1"}, {hostile, hostile}}, hostile)
	ep.Policy = hostile
	ep.Source = hostile
	var page bytes.Buffer
	if err := view.Write(&page, view.Group([]*data.Episode{ep}), view.Options{Title: hostile}); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	if strings.Contains(s, "ZgotmplZ") {
		t.Error("html/template refused a value (ZgotmplZ in the page)")
	}
	for _, bad := range []string{"<script>alert", "<img", "onerror=\"", "</script><script>alert", "<!--"} {
		if strings.Contains(s, bad) {
			t.Errorf("page holds %q unescaped", bad)
		}
	}
	if n := strings.Count(s, "&lt;img src=x onerror=&#34;alert(2)&#34;&gt;"); n < 2 {
		t.Errorf("escaped text shown %d times in the HTML, want ≥ 2 (title, policy)", n)
	}
	// The only scripts are the three data islands and the page's own.
	if n := strings.Count(s, "<script"); n != 4 {
		t.Errorf("%d <script elements, want 4", n)
	}
	is := view.Islands(page.Bytes())
	for _, id := range []string{"data", "texts"} {
		if !base64Island.MatchString(is[id]) {
			t.Errorf("island %s is not one base64 JSON string: %.80q", id, is[id])
		}
	}
	if got := summaryOf(t, page.Bytes()); got[0].Policy != hostile {
		t.Errorf("data island policy %q, want %q", got[0].Policy, hostile)
	}
	u, err := view.Unpack(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	r := u.Rows[0]
	if r.Task != hostile || r.Gold != hostile || u.Policies[0] != hostile || u.Sources[r.Source] != hostile ||
		u.Texts[r.Text] != hostile || r.Opening != hostile || r.Cols[0][0].Rounds[1].Turns[1][0] != hostile {
		t.Errorf("hostile values not read back intact: %+v", u)
	}
}

var base64Island = regexp.MustCompile(`^"[A-Za-z0-9+/]*=*"$`)

// TestScriptWritesNoMarkup: the page's script puts texts in as text.
func TestScriptWritesNoMarkup(t *testing.T) {
	ep := episode("e1", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, "a")
	var page bytes.Buffer
	if err := view.Write(&page, view.Group([]*data.Episode{ep}), view.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function"} {
		if strings.Contains(page.String(), bad) {
			t.Errorf("the page's script uses %s", bad)
		}
	}
}

// TestSelfContained: the page names no URL and loads nothing.
func TestSelfContained(t *testing.T) {
	ep := episode("e1", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, "see https://example.com")
	var page bytes.Buffer
	if err := view.Write(&page, view.Group([]*data.Episode{ep}), view.Options{Title: "x"}); err != nil {
		t.Fatal(err)
	}
	s := page.String()
	for _, bad := range []string{"http:", "https:", " src=", "href=", "@import", "url(", "fetch(", "XMLHttpRequest"} {
		if strings.Contains(s, bad) {
			t.Errorf("page holds %q: it would load or link something", bad)
		}
	}
	if !strings.Contains(s, "default-src 'none'") {
		t.Error("no Content-Security-Policy blocking the network")
	}
}

// TestCutsLongText: a text over MaxTextBytes is cut on a character
// boundary, with the marker, and kept once however often it is said.
func TestCutsLongText(t *testing.T) {
	long := strings.Repeat("é", view.MaxTextBytes) // 2 bytes each
	ep := episode("e1", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, long)
	var page bytes.Buffer
	if err := view.Write(&page, view.Group([]*data.Episode{ep}), view.Options{}); err != nil {
		t.Fatal(err)
	}
	u, err := view.Unpack(page.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Repeat("é", view.MaxTextBytes/2) + "… [cut: 4000 of 8000 bytes shown]"
	if len(u.Texts) != 1 || u.Texts[0] != want {
		t.Errorf("texts %d, first %.40q…, want the one cut text with its marker", len(u.Texts), u.Texts)
	}
	r := u.Rows[0]
	if r.Text != 0 || r.Cols[0][0].Rounds[1].Turns[1][4] != 0.0 {
		t.Errorf("question and turns do not refer to the one text: %+v", r)
	}
}

// TestBudget: a page over its budget is refused, nothing written, and the
// error says how to shrink it (marked ErrOverBudget, for a caller to
// name its setting).
func TestBudget(t *testing.T) {
	var eps []*data.Episode
	for i := range 50 {
		id := string(rune('a'+i%26)) + strings.Repeat("x", i/26)
		eps = append(eps, episode(id, id, "4", [][]string{{"4", "5"}, {"4", "4"}}, strings.Repeat("w", 3000)))
	}
	var page bytes.Buffer
	if err := view.Write(&page, view.Group(eps), view.Options{}); err != nil {
		t.Fatal(err)
	}
	full := page.Len()
	page.Reset()
	err := view.Write(&page, view.Group(eps), view.Options{MaxBytes: full - 1})
	if !errors.Is(err, view.ErrOverBudget) || !strings.Contains(err.Error(), "show fewer tasks") || strings.Contains(err.Error(), "--") {
		t.Fatalf("over budget: err %v, want ErrOverBudget asking for fewer tasks, in library words", err)
	}
	if page.Len() != 0 {
		t.Errorf("%d bytes written over budget", page.Len())
	}
	if err := view.Write(&page, view.Group(eps), view.Options{MaxBytes: full}); err != nil {
		t.Errorf("at budget: %v", err)
	}
}

// TestDeterministic: the same episodes give the same bytes.
func TestDeterministic(t *testing.T) {
	eps := []*data.Episode{
		episode("e1", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, "a"),
		episode("e2", "t2", "7", [][]string{{"4", "5"}, {"5", "5"}}, "b"),
	}
	eps[1].Policy = "q"
	var a, b bytes.Buffer
	if err := view.Write(&a, view.Group(eps), view.Options{}); err != nil {
		t.Fatal(err)
	}
	if err := view.Write(&b, view.Group(eps), view.Options{}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("two renders differ")
	}
}

// TestConfidenceSource: each episode says where its confidences come
// from, by its source or as the caller says.
func TestConfidenceSource(t *testing.T) {
	ep := episode("e1", "t1", "4", [][]string{{"4", "5"}, {"4", "4"}}, "a")
	c := 0.7
	ep.Rounds[1].Turns[0].Confidence = &c
	ep.Source = "simulator"
	read := func(o view.Options) (string, []any, []any) {
		t.Helper()
		var page bytes.Buffer
		if err := view.Write(&page, view.Group([]*data.Episode{ep}), o); err != nil {
			t.Fatal(err)
		}
		u, err := view.Unpack(page.Bytes())
		if err != nil {
			t.Fatal(err)
		}
		e := u.Rows[0].Cols[0][0]
		return u.Confs[e.Conf], e.Rounds[1].Turns[0], e.Rounds[1].Turns[1]
	}
	src, known, missing := read(view.Options{})
	if src != "simulated" || known[2] != 0.7 || missing[2] != -1.0 {
		t.Errorf("confidence from %q, turns %v %v: want simulated, 0.7 and -1 (missing)", src, known, missing)
	}
	if src, _, _ := read(view.Options{Confidence: "the text critic"}); src != "the text critic" {
		t.Errorf("Options.Confidence does not override the source's: %q", src)
	}
}
