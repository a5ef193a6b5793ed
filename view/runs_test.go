package view_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/view"
)

// trainInto trains a small online run on the simulator into dir, with a
// hidden layer of the given width, and writes its page.
func trainInto(t *testing.T, dir string, hidden int) {
	t.Helper()
	cfg := trainer.DefaultConfig()
	cfg.Hidden = []int{hidden}
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
	if _, err := run.Train(context.Background(), run.Config{Train: cfg, Env: train, EnvName: "sim", HeldOutEnv: held, EvalTasks: 20, Dir: dir, EvalEvery: 1}, run.Hooks{}); err != nil {
		t.Fatal(err)
	}
	if _, err := view.WriteRunPage(dir, ""); err != nil {
		t.Fatal(err)
	}
}

// runsDir is a directory of runs: two trained runs (hidden widths 8 and
// 16), one under a name that is markup, and hostile ones — a bad
// metrics.jsonl line, an eval.json linked out of the directory, a
// metrics.jsonl that is such a link, a run directory that is a link — and
// a file that is no run.
func runsDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	trainInto(t, filepath.Join(dir, "h8"), 8)
	trainInto(t, filepath.Join(dir, "sweep", `<b>h16</b>`), 16)
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, run.MetricsName), []byte("{\"step\":1,\"iter\":0,\"reward\":0.5}\n{\"step\":2,\n"+"{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	if err := os.WriteFile(filepath.Join(out, run.EvalName), []byte(`{"env":"outside"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	linked := filepath.Join(dir, "linked")
	if err := os.MkdirAll(linked, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(linked, run.MetricsName), []byte("{\"step\":1,\"iter\":0,\"reward\":0.5}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, run.EvalName), filepath.Join(linked, run.EvalName)); err != nil {
		t.Fatal(err)
	}
	escape := filepath.Join(dir, "escape")
	if err := os.MkdirAll(escape, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(out, run.EvalName), filepath.Join(escape, run.MetricsName)); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(dir, "h8"), filepath.Join(dir, "alias")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("not a run"), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunsIndex: the index lists every run under the directory with the
// configuration keys that differ (the hidden width, not the seed they
// share), each run's verdict and numbers as its eval.json and
// metrics.jsonl have them, a curve per run; a run whose files do not read
// is listed as skipped with the file and line, and the others shown; a
// link out of the directory is not followed; every name is escaped.
func TestRunsIndex(t *testing.T) {
	dir := runsDir(t)
	idx, err := view.WriteRunsIndex(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"h8", "sweep/<b>h16</b>"}; fmt.Sprint(idx.Runs) != fmt.Sprint(want) {
		t.Errorf("runs %q, want %q (the link alias not entered)", idx.Runs, want)
	}
	reasons := map[string]string{}
	for _, s := range idx.Skipped {
		reasons[s.Dir] = s.Reason
	}
	if len(idx.Skipped) != 3 || !strings.Contains(reasons["bad"], "bad/metrics.jsonl:2") || !strings.Contains(reasons["linked"], "linked/eval.json: a symbolic link leading out") ||
		!strings.Contains(reasons["escape"], "escape/metrics.jsonl: a symbolic link leading out") {
		t.Errorf("skipped %q, want bad (metrics.jsonl:2), linked (eval.json) and escape (metrics.jsonl), the last two links out", idx.Skipped)
	}
	b, err := os.ReadFile(filepath.Join(dir, view.RunsIndexName))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	selfContained(t, page)
	if strings.Contains(page, "<b>h16") || !strings.Contains(page, "&lt;b&gt;h16&lt;/b&gt;") {
		t.Error("a run's name went into the page unescaped")
	}
	if strings.Contains(page, "outside") {
		t.Error("the index shows a file linked from outside the directory")
	}
	for _, s := range idx.Skipped {
		if !strings.Contains(page, escape(s.Reason)) {
			t.Errorf("the page does not say why %s was skipped", s.Dir)
		}
	}
	head := regexp.MustCompile(`<th class="k">([^<]*)</th>`).FindAllStringSubmatch(page, -1)
	if len(head) != 1 || head[0][1] != "train.hidden" {
		t.Errorf("configuration columns %q, want train.hidden alone", head)
	}
	cells := tableCells(page)
	for i, rel := range idx.Runs {
		rdir := filepath.Join(dir, filepath.FromSlash(rel))
		ef := readEval(t, rdir)
		for _, r := range ef.Verdict.Rows {
			if r.Learned && !(cells[fmt.Sprintf("%.3f", r.Accuracy)] && cells[fmt.Sprintf("[%.3f, %.3f]", r.CILow, r.CIHigh)]) {
				t.Errorf("%s: the table lacks the learned row's accuracy %.3f [%.3f, %.3f]", rel, r.Accuracy, r.CILow, r.CIHigh)
			}
		}
		if !strings.Contains(page, escape(ef.Verdict.Line())) {
			t.Errorf("%s: the page lacks its verdict", rel)
		}
		// Its held-out curve: its points, iteration and accuracy.
		l, err := run.ReadLearning(rdir)
		if err != nil {
			t.Fatal(err)
		}
		fig := figure(t, page, "o-heldout-accuracy")
		g := regexp.MustCompile(fmt.Sprintf(`(?s)<g class="s" data-run="r%d">(.*?)</g>`, i)).FindStringSubmatch(fig)
		if g == nil {
			t.Fatalf("%s: no held-out curve", rel)
		}
		got := regexp.MustCompile(`data-x="([^"]*)" data-y="([^"]*)"`).FindAllStringSubmatch(g[1], -1)
		if len(got) != len(l.HeldOut) || len(got) < 4 {
			t.Fatalf("%s: %d held-out points drawn, metrics.jsonl has %d", rel, len(got), len(l.HeldOut))
		}
		for j, h := range l.HeldOut {
			if got[j][1] != fmt.Sprint(h.Iter) || got[j][2] != fmt.Sprint(h.HeldOut.TeamAccuracy) {
				t.Errorf("%s: point %d (%s, %s), want (%d, %v)", rel, j, got[j][1], got[j][2], h.Iter, h.HeldOut.TeamAccuracy)
			}
		}
		if want := `href="./` + strings.ReplaceAll(strings.ReplaceAll(rel, "<", "%3c"), ">", "%3e") + `/index.html"`; !strings.Contains(page, want) {
			t.Errorf("%s: no link %s to its page", rel, want)
		}
	}
	checkIndexOutputs(t, dir)
}

// checkIndexOutputs: an index written outside the directory of runs still
// links to their pages; one written again over its own index is fine;
// over another file, or in a run's own directory, it is refused and
// nothing is written.
func checkIndexOutputs(t *testing.T, dir string) {
	t.Helper()
	// Written elsewhere, its links still lead to the runs' pages.
	elsewhere := filepath.Join(filepath.Dir(dir), "elsewhere.html")
	if _, err := view.WriteRunsIndex(dir, elsewhere); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(elsewhere); !strings.Contains(string(b), `href="./`+filepath.Base(dir)+`/h8/index.html"`) {
		t.Error("an index written outside the directory of runs does not link to their pages")
	}
	// Written again over its own index: fine. Over another file, or in a
	// run's own directory: refused, nothing written.
	if _, err := view.WriteRunsIndex(dir, ""); err != nil {
		t.Errorf("rewriting the index: %v", err)
	}
	other := filepath.Join(dir, "other.html")
	if err := os.WriteFile(other, []byte("<!DOCTYPE html><p>mine"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := view.WriteRunsIndex(dir, other); err == nil || !strings.Contains(err.Error(), "not an index of runs") {
		t.Errorf("over a file of the user's: err %v", err)
	}
	if b, _ := os.ReadFile(other); string(b) != "<!DOCTYPE html><p>mine" {
		t.Error("the user's file was replaced")
	}
	runPage, _ := os.ReadFile(filepath.Join(dir, "h8", view.RunPageName))
	if _, err := view.WriteRunsIndex(filepath.Join(dir, "h8"), ""); err == nil || !strings.Contains(err.Error(), "training run's directory") {
		t.Errorf("indexing a run's own directory: err %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "h8", view.RunPageName)); !bytes.Equal(b, runPage) {
		t.Error("the run's page was replaced")
	}
}

func readEval(t *testing.T, dir string) run.EvalFile {
	t.Helper()
	var ef run.EvalFile
	b, err := os.ReadFile(filepath.Join(dir, run.EvalName))
	if err != nil {
		t.Fatal(err)
	}
	if err := jsonUnmarshal(b, &ef); err != nil {
		t.Fatal(err)
	}
	if ef.Verdict == nil {
		t.Fatalf("%s: no verdict", dir)
	}
	return ef
}

var jsonUnmarshal = json.Unmarshal

// TestRunsIndexBudget: an index over its budget (a run's eval.json with a
// 3 MB verdict, shown twice) is refused, and nothing is written.
func TestRunsIndexBudget(t *testing.T) {
	dir := t.TempDir()
	rdir := filepath.Join(dir, "big")
	if err := os.MkdirAll(rdir, 0o755); err != nil {
		t.Fatal(err)
	}
	ef := run.EvalFile{Env: "sim", Verdict: &env.Verdict{Policy: "mpdf", Use: "mpdf", Sentence: strings.Repeat("s", 3<<20),
		Rows: []env.VerdictRow{{Policy: "mpdf", Learned: true, Accuracy: 0.5}}}}
	writeJSON(t, filepath.Join(rdir, run.EvalName), ef)
	if _, err := view.WriteRunsIndex(dir, ""); !errors.Is(err, view.ErrOverBudget) {
		t.Errorf("a 6 MB index: err %v, want ErrOverBudget", err)
	}
	if _, err := os.Stat(filepath.Join(dir, view.RunsIndexName)); !os.IsNotExist(err) {
		t.Errorf("an index over its budget was written (stat: %v)", err)
	}
}
