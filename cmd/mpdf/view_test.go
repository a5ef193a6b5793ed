package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
)

var viewSummaryRE = regexp.MustCompile(`(?s)<script type="application/json" id="summary">(.*?)</script>`)

// viewSummary is the per-policy figures a page embeds.
func viewSummary(t *testing.T, path string) []env.Result {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	m := viewSummaryRE.FindSubmatch(b)
	if m == nil {
		t.Fatalf("%s: no summary data island", path)
	}
	var rs []env.Result
	if err := json.Unmarshal(m[1], &rs); err != nil {
		t.Fatal(err)
	}
	return rs
}

// TestViewPlaysAsEval: mpdf view --env/--policy embeds, per policy, the
// accuracy and tokens per task mpdf eval --json prints for the same flags
// (baselines added the same way), and the page of the episodes simulate
// wrote with one policy shows that policy's numbers.
func TestViewPlaysAsEval(t *testing.T) {
	dir := t.TempDir()
	page := filepath.Join(dir, "view.html")
	flags := []string{"--env", "sim", "--tasks", "25", "--episodes", "2", "--seed", "3", "-q"}
	if _, stderr, err := execute(append([]string{"view", "--out", page}, flags...)...); err != nil {
		t.Fatalf("view: %v\n%s", err, stderr)
	}
	stdout, stderr, err := execute(append([]string{"eval", "--json"}, flags...)...)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	var want []env.Result
	if err := json.Unmarshal([]byte(stdout), &want); err != nil {
		t.Fatal(err)
	}
	got := viewSummary(t, page)
	if len(got) != len(want) || len(want) < 3 {
		t.Fatalf("page has %d policies, eval %d (want ≥ 3 baselines)", len(got), len(want))
	}
	for i := range want {
		if got[i].Policy != want[i].Policy || got[i].Accuracy != want[i].Accuracy || got[i].TokensPerTask != want[i].TokensPerTask {
			t.Errorf("policy %d: page %s %.4f %.1f tok, eval %s %.4f %.1f tok", i,
				got[i].Policy, got[i].Accuracy, got[i].TokensPerTask, want[i].Policy, want[i].Accuracy, want[i].TokensPerTask)
		}
	}

	eps := filepath.Join(dir, "eps.jsonl")
	if _, stderr, err := execute("simulate", "--policy", "random", "--tasks", "25", "--episodes", "2", "--seed", "3", "--out", eps); err != nil {
		t.Fatalf("simulate: %v\n%s", err, stderr)
	}
	page2 := filepath.Join(dir, "eps.html")
	if _, stderr, err := execute("view", eps, "--tasks", "10", "--out", page2); err != nil {
		t.Fatalf("view of episodes: %v\n%s", err, stderr)
	} else if !strings.Contains(stderr, "wrote "+page2+"\n") {
		t.Errorf("view --out does not say what it wrote: %q", stderr)
	}
	s := viewSummary(t, page2)
	if len(s) != 1 || s[0].Policy != "random" || s[0].Tasks != 10 || s[0].Episodes != 20 {
		t.Errorf("page of simulated episodes: %+v, want random's 10 tasks × 2 episodes", s)
	}

	_, _, err = execute("view", eps, "--env", "sim", "--out", page2)
	if err == nil || !strings.Contains(err.Error(), "not both") {
		t.Errorf("episodes and --env: err %v, want one saying not both", err)
	}
	_, _, err = execute("view", eps, "--max-bytes", "1000", "--out", filepath.Join(dir, "small.html"))
	if err == nil || !strings.Contains(err.Error(), "--tasks") {
		t.Errorf("over budget: err %v, want one suggesting --tasks", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "small.html")); !os.IsNotExist(err) {
		t.Errorf("a page over budget was written (stat: %v)", err)
	}
}

// TestViewRunDir: mpdf train leaves the run's page in its directory, and
// mpdf view RUN_DIR writes it again (there, or to --out).
func TestViewRunDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	if _, stderr, err := execute("train", "-q", "--out", dir, "--iterations", "1", "--hidden", "8", "--sft-epochs", "1"); err != nil {
		t.Fatalf("train: %v\n%s", err, stderr)
	}
	page := filepath.Join(dir, "index.html")
	b, err := os.ReadFile(page)
	if err != nil || !strings.Contains(string(b), "<svg") {
		t.Fatalf("train left no run page with curves (%v)", err)
	}
	if err := os.Remove(page); err != nil {
		t.Fatal(err)
	}
	if _, stderr, err := execute("view", dir); err != nil {
		t.Fatalf("view RUN_DIR: %v\n%s", err, stderr)
	}
	again, err := os.ReadFile(page)
	if err != nil || string(again) != string(b) {
		t.Errorf("view RUN_DIR wrote another page than train (%v)", err)
	}
	other := filepath.Join(t.TempDir(), "other.html")
	if _, stderr, err := execute("view", dir, "--out", other); err != nil {
		t.Fatalf("view RUN_DIR --out: %v\n%s", err, stderr)
	}
	if _, err := os.Stat(other); err != nil {
		t.Error(err)
	}
}
