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
