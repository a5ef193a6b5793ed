package view_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/trainer"
	"github.com/mpdf/mpdf/trainer/run"
	"github.com/mpdf/mpdf/view"
)

// trainRun trains a small online run on the simulator into a directory,
// with its final evaluation.
func trainRun(t *testing.T) string {
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
	_, err = run.Train(context.Background(), run.Config{Train: cfg, Env: train, EnvName: "sim", HeldOutEnv: held, EvalTasks: 20, Dir: dir}, run.Hooks{})
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// TestRunPage: the page of a run directory shows the curves of its
// metrics.jsonl, its final evaluation and verdict as the text report
// (the same numbers: eval.json's tables, written by env's own writers),
// and best.mpdf's provenance as mpdf inspect prints it; it loads nothing
// and runs no script.
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
	if n := strings.Count(page, "<svg"); n != 9 {
		t.Errorf("%d charts, want 9 (reward, KL, entropy, actions; held-out accuracy and tokens at iterations 0 and 3, non-zero advantages; team accuracy and tokens at the checkpoints)", n)
	}
	if n := strings.Count(page, "<polyline"); n != 11 {
		t.Errorf("%d lines, want 11", n)
	}
	if !strings.Contains(page, "RL against the supervised policy alone") {
		t.Error("the page lacks what RL changed against the supervised policy")
	}
	var ef run.EvalFile
	raw, err := os.ReadFile(filepath.Join(dir, run.EvalName))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &ef); err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := ef.Results.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	if ef.Verdict == nil {
		t.Fatal("eval.json has no verdict")
	}
	if err := ef.Verdict.WriteTable(&table); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(strings.TrimSpace(table.String()), "\n") {
		if !strings.Contains(page, escape(line)) {
			t.Errorf("the page lacks the report's line %q", line)
		}
	}
	d, err := checkpoints.Inspect(filepath.Join(dir, "best.mpdf"))
	if err != nil {
		t.Fatal(err)
	}
	var prov bytes.Buffer
	if err := d.WriteText(&prov); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(page, escape(prov.String())) {
		t.Error("the page lacks best.mpdf's provenance as inspect prints it")
	}
	for _, bad := range []string{"<script", "http:", "https:", " src=", "href=", "url("} {
		if strings.Contains(page, bad) {
			t.Errorf("run page holds %q", bad)
		}
	}
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
