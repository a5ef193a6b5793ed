package view_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/view"
)

// trainRun trains a small online run on the simulator into a directory,
// with its final evaluation.
func trainRun(t *testing.T) string {
	t.Helper()
	dir, _ := trainRunResult(t)
	return dir
}

// trainRunResult is trainRun with what run.Train returned.
func trainRunResult(t *testing.T) (string, *run.Result) {
	t.Helper()
	cfg := trainer.DefaultConfig()
	cfg.Hidden = []int{8}
	cfg.SFT.Epochs = 1
	cfg.RL.Iterations = 3
	cfg.RL.TasksPerIter, cfg.RL.EpisodesPerTask = 8, 4
	train, err := sim.New(sim.Config{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	held, err := sim.New(sim.Config{Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "run")
	res, err := run.Train(context.Background(), run.Config{Train: cfg, Env: train, EnvName: "sim", HeldOutEnv: held, EvalTasks: 20, Dir: dir}, run.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return dir, res
}

// TestRunViewer: the viewer of a run's final evaluation shows the
// evaluation's own episodes: per policy, the accuracy, interval and
// tokens per task of eval.json; and the run page then links to it.
func TestRunViewer(t *testing.T) {
	dir, res := trainRunResult(t)
	path, err := view.WriteRunViewer(dir, res)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, view.RunViewName) {
		t.Fatalf("written to %q", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?s)<script type="application/json" id="summary">(.*?)</script>`).FindSubmatch(b)
	if m == nil {
		t.Fatal("the viewer has no summary island")
	}
	var got []env.Result
	if err := json.Unmarshal(m[1], &got); err != nil {
		t.Fatal(err)
	}
	ef := readEval(t, dir)
	if len(got) != len(ef.Results) || len(got) < 5 {
		t.Fatalf("the viewer has %d policies, eval.json %d", len(got), len(ef.Results))
	}
	for i, w := range ef.Results {
		g := got[i]
		if g.Policy != w.Policy || fmt.Sprintf("%.3f %.3f %.3f %.3f", g.Accuracy, g.CILow, g.CIHigh, g.TokensPerTask) != fmt.Sprintf("%.3f %.3f %.3f %.3f", w.Accuracy, w.CILow, w.CIHigh, w.TokensPerTask) {
			t.Errorf("policy %d: viewer %s %.3f [%.3f, %.3f] %.3f tokens, eval.json %s %.3f [%.3f, %.3f] %.3f", i,
				g.Policy, g.Accuracy, g.CILow, g.CIHigh, g.TokensPerTask, w.Policy, w.Accuracy, w.CILow, w.CIHigh, w.TokensPerTask)
		}
	}
	var page bytes.Buffer
	if err := view.WriteRun(&page, dir); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page.String(), `<a id="viewer-link" href="view.html">`) {
		t.Error("the run page does not link to the viewer")
	}
}

// TestRunPage: the page of a run directory leads with the verdict of its
// eval.json as a sentence, its rows as points of the accuracy–tokens
// chart and in a table, with the final evaluation's table, every number
// eval.json's in the text report's formats; it draws the held-out points
// of metrics.jsonl and its per-step curves (their raw values, for the
// smoothing, are metrics.jsonl's); best.mpdf's provenance is a table and,
// folded, the text mpdf inspect prints; it loads nothing.
func TestRunPage(t *testing.T) {
	dir := trainRun(t)
	if !view.IsRunDir(dir) || view.IsRunDir(filepath.Dir(dir)) {
		t.Fatalf("IsRunDir: the run %v, its parent %v", view.IsRunDir(dir), view.IsRunDir(filepath.Dir(dir)))
	}
	path, err := view.WriteRunPage(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, view.RunPageName) {
		t.Errorf("written to %s", path)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	var ef run.EvalFile
	raw, err := os.ReadFile(filepath.Join(dir, run.EvalName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ef); err != nil {
		t.Fatal(err)
	}
	v := ef.Verdict
	if v == nil {
		t.Fatal("eval.json has no verdict")
	}
	sentence := regexp.MustCompile(`<p class="verdict" id="verdict-sentence">(.*?)</p>`).FindStringSubmatch(page)
	if sentence == nil || html.UnescapeString(regexp.MustCompile(`<[^>]*>`).ReplaceAllString(sentence[1], "")) != v.Line() || !strings.Contains(sentence[1], "<strong>use "+escape(v.Use)+"</strong>") {
		t.Errorf("the page's verdict %q, want the line %q with its use emphasised", sentence, v.Line())
	}
	checkVerdict(t, page, v)
	cells := tableCells(page)
	for _, r := range ef.Results {
		for _, c := range []string{fmt.Sprintf("%.3f", r.Accuracy), fmt.Sprintf("[%.3f, %.3f]", r.CILow, r.CIHigh), fmt.Sprintf("%.0f", r.TokensPerTask)} {
			if !cells[c] {
				t.Errorf("%s: the results' table lacks %q", r.Policy, c)
			}
		}
	}
	if !strings.Contains(page, "RL against the supervised policy alone") || !strings.Contains(page, `id="rl-change"`) {
		t.Error("the page lacks what RL changed against the supervised policy")
	}
	// The held-out points, iteration and accuracy, are metrics.jsonl's.
	l, err := run.ReadLearning(dir)
	if err != nil {
		t.Fatal(err)
	}
	fig := figure(t, page, "heldout-accuracy")
	got := regexp.MustCompile(`<circle class="pt" cx="[^"]*" cy="[^"]*" r="3" fill="[^"]*" data-x="([^"]*)" data-y="([^"]*)">`).FindAllStringSubmatch(fig, -1)
	if len(got) != len(l.HeldOut) || len(got) < 2 {
		t.Fatalf("%d held-out points drawn, metrics.jsonl has %d", len(got), len(l.HeldOut))
	}
	for i, h := range l.HeldOut {
		if got[i][1] != fmt.Sprint(h.Iter) || got[i][2] != fmt.Sprint(h.HeldOut.TeamAccuracy) {
			t.Errorf("held-out point %d: iteration %s accuracy %s, want %d and %v", i, got[i][1], got[i][2], h.Iter, h.HeldOut.TeamAccuracy)
		}
	}
	// The raw values the smoothing starts from are metrics.jsonl's rewards.
	c, err := run.ReadCurves(dir)
	if err != nil {
		t.Fatal(err)
	}
	data := chartData(t, page)
	rew := data["reward"].S[0]
	if len(rew.Y) != len(c.Reward) {
		t.Fatalf("%d reward points, metrics.jsonl has %d", len(rew.Y), len(c.Reward))
	}
	for i := range c.Reward {
		if math.Abs(rew.Y[i]-c.Reward[i]) > 1e-5*math.Max(1, math.Abs(c.Reward[i])) || rew.X[i] != c.Step[i] {
			t.Fatalf("reward point %d: (%v, %v), metrics.jsonl (%v, %v)", i, rew.X[i], rew.Y[i], c.Step[i], c.Reward[i])
		}
	}
	// Provenance: a table, and folded the text of mpdf inspect.
	d, err := checkpoints.Inspect(filepath.Join(dir, "best.mpdf"))
	if err != nil {
		t.Fatal(err)
	}
	info := d.(*checkpoints.Info)
	info.File = "best.mpdf"
	var prov bytes.Buffer
	if err := info.WriteText(&prov); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, escape(prov.String())) {
		t.Error("the page lacks best.mpdf's provenance as inspect prints it")
	}
	for _, row := range [][2]string{{"step", fmt.Sprint(info.Step)}, {"policy", info.Policy.String()}, {"train.seed", "1"}, {"train.hidden", "[8]"}, {"data.env", "sim"}} {
		if !strings.Contains(page, "<tr><th>"+escape(row[0])+"</th><td>"+escape(row[1])+"</td></tr>") {
			t.Errorf("the provenance tables lack the row %s = %s", row[0], row[1])
		}
	}
	// No viewer in the directory: no link to one.
	if strings.Contains(page, `href="`) {
		t.Error("the page links somewhere, but the run has no viewer page")
	}
	selfContained(t, page)
}

// checkVerdict: the verdict's chart has a point per row at its accuracy
// and tokens, and its table the text report's cells
// (env.Verdict.WriteTable's formats).
func checkVerdict(t *testing.T, page string, v *env.Verdict) {
	t.Helper()
	// The verdict's chart: a point per row at its accuracy and tokens.
	pts := regexp.MustCompile(`<g class="vp" data-policy="([^"]*)" data-accuracy="([^"]*)" data-tokens="([^"]*)">`).FindAllStringSubmatch(page, -1)
	if len(pts) != len(v.Rows) {
		t.Fatalf("%d points in the verdict's chart, want %d (its rows)", len(pts), len(v.Rows))
	}
	for i, r := range v.Rows {
		if pts[i][1] != escape(r.Policy) || pts[i][2] != fmt.Sprint(r.Accuracy) || pts[i][3] != fmt.Sprint(r.TokensPerTask) {
			t.Errorf("verdict point %d: %q, want %s at accuracy %v, %v tokens", i, pts[i][1:], r.Policy, r.Accuracy, r.TokensPerTask)
		}
	}
	// The verdict's and the results' tables: the text report's cells
	// (env.Verdict.WriteTable's and env.Results.WriteTable's formats).
	cells := tableCells(page)
	for _, r := range v.Rows {
		want := []string{r.Policy, fmt.Sprintf("%.3f", r.Accuracy), fmt.Sprintf("[%.3f, %.3f]", r.CILow, r.CIHigh), fmt.Sprintf("%.0f", r.TokensPerTask)}
		if d := r.DeltaAccuracy; d != nil {
			want = append(want, fmt.Sprintf("%+.1f [%+.1f, %+.1f]", d.Estimate, d.Low, d.High), fmt.Sprintf("%+.0f", r.DeltaTokens.Estimate))
		}
		for _, c := range want {
			if !cells[c] {
				t.Errorf("verdict row %s: the table lacks %q", r.Policy, c)
			}
		}
	}
}

// selfContained fails on anything on the page that could load: a script
// or style from elsewhere, a URL, a source.
func selfContained(t *testing.T, page string) {
	t.Helper()
	if !strings.Contains(page, `<meta http-equiv="Content-Security-Policy" content="default-src 'none';`) {
		t.Error("the page has no Content-Security-Policy blocking the network")
	}
	for _, bad := range []string{"<script src", "http:", "https:", " src=", "url(", "<link", "@import"} {
		if strings.Contains(page, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}

// tableCells are the texts of the page's table cells, unescaped.
func tableCells(page string) map[string]bool {
	out := map[string]bool{}
	for _, m := range regexp.MustCompile(`<td[^>]*>([^<]*)`).FindAllStringSubmatch(page, -1) {
		out[html.UnescapeString(strings.TrimSuffix(m[1], " ← use"))] = true
	}
	return out
}

// figure is the chart of id on the page.
func figure(t *testing.T, page, id string) string {
	t.Helper()
	i := strings.Index(page, `<figure class="chart" id="`+id+`">`)
	if i < 0 {
		t.Fatalf("the page has no chart %s", id)
	}
	j := strings.Index(page[i:], "</figure>")
	return page[i : i+j]
}

// chartData reads the page's island of the smoothed charts' raw values.
func chartData(t *testing.T, page string) map[string]struct{ S []struct{ X, Y []float64 } } {
	t.Helper()
	m := regexp.MustCompile(`(?s)<script type="application/json" id="chart-data">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("the page has no chart-data island")
	}
	var out map[string]struct{ S []struct{ X, Y []float64 } }
	if err := json.Unmarshal([]byte(m[1]), &out); err != nil {
		t.Fatalf("chart-data: %v", err)
	}
	return out
}

// TestRunPageRefusesOther: a directory with nothing of a run is an error,
// and nothing is written.
func TestRunPageRefusesOther(t *testing.T) {
	dir := t.TempDir()
	if _, err := view.WriteRunPage(dir, ""); err == nil || !strings.Contains(err.Error(), "not a training run") {
		t.Errorf("empty directory: err %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, view.RunPageName)); !os.IsNotExist(err) {
		t.Errorf("a page was written (stat: %v)", err)
	}
	if err := os.WriteFile(filepath.Join(dir, run.MetricsName), []byte("{\"step\":1,\"iter\":0,\"reward\":0.5}\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := view.WriteRunPage(dir, ""); err == nil || !strings.Contains(err.Error(), "metrics.jsonl:2") {
		t.Errorf("a bad metrics line: err %v, want one naming the file and line 2", err)
	}
}

// escape is s as html/template writes it in text.
func escape(s string) string {
	r := strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&#34;", "'", "&#39;", "+", "&#43;")
	return r.Replace(s)
}

// TestRunPageViewerLink: the page links to the viewer of the final
// evaluation when the run's directory holds it (a regular file), and
// only then: a symbolic link by its name gets no link.
func TestRunPageViewerLink(t *testing.T) {
	dir := trainRun(t)
	viewer := filepath.Join(dir, view.RunViewName)
	if err := os.Symlink(filepath.Join(dir, run.EvalName), viewer); err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := view.WriteRun(&page, dir); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), `href="`) {
		t.Error("a symbolic link named view.html got a link")
	}
	if err := os.Remove(viewer); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(viewer, []byte("<!DOCTYPE html><title>viewer</title>"), 0o644); err != nil {
		t.Fatal(err)
	}
	page.Reset()
	if err := view.WriteRun(&page, dir); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(page.String(), `href="`); n != 1 || !strings.Contains(page.String(), `<a id="viewer-link" href="view.html">`) {
		t.Errorf("%d links; want one, to view.html", n)
	}
}

// TestRunPageHostile: a file of the run that is a symbolic link out of
// its directory is not read (an error naming it), a run whose eval.json
// would make the page over its budget is refused and nothing is written,
// and a file's markup is shown as text.
func TestRunPageHostile(t *testing.T) {
	dir := trainRun(t)
	outside := filepath.Join(t.TempDir(), "secret.json")
	if err := os.WriteFile(outside, []byte(`{"env":"secret"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	evalPath := filepath.Join(dir, run.EvalName)
	good, err := os.ReadFile(evalPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(evalPath); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, evalPath); err != nil {
		t.Fatal(err)
	}
	if _, err := view.WriteRunPage(dir, ""); err == nil || !strings.Contains(err.Error(), run.EvalName) {
		t.Errorf("eval.json linked out of the run: err %v, want one naming eval.json", err)
	}
	os.Remove(evalPath)
	var ef run.EvalFile
	if err := json.Unmarshal(good, &ef); err != nil {
		t.Fatal(err)
	}
	ef.Env = `</script><script>alert(1)</script>`
	ef.Notes = []string{`<img src=x onerror=alert(1)>`}
	writeJSON(t, evalPath, ef)
	var page bytes.Buffer
	if err := view.WriteRun(&page, dir); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page.String(), "<img") || strings.Contains(page.String(), "<script>alert") {
		t.Error("a text of eval.json went into the page as markup")
	}
	for range 3000 {
		ef.Notes = append(ef.Notes, strings.Repeat("n", 1000))
	}
	writeJSON(t, evalPath, ef)
	os.Remove(filepath.Join(dir, view.RunPageName))
	if _, err := view.WriteRunPage(dir, ""); !errors.Is(err, view.ErrOverBudget) {
		t.Errorf("a page of 3 MB of notes: err %v, want ErrOverBudget", err)
	}
	if _, err := os.Stat(filepath.Join(dir, view.RunPageName)); !os.IsNotExist(err) {
		t.Errorf("a page over its budget was written (stat: %v)", err)
	}
}

func writeJSON(t *testing.T, path string, v any) {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}
