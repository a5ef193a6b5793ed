package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRunsCommand: mpdf runs DIR writes DIR/index.html listing the runs
// mpdf train wrote under DIR (their differing flag, --hidden, as a
// column) and names on stderr a run it skipped, with the file and line;
// given a run's own directory it refuses, leaving the run's page.
func TestRunsCommand(t *testing.T) {
	dir := t.TempDir()
	for _, h := range []string{"8", "12"} {
		if _, stderr, err := execute("train", "-q", "--out", filepath.Join(dir, "h"+h), "--iterations", "1", "--hidden", h,
			"--tasks-per-iter", "2", "--episodes-per-task", "2", "--sft-epochs", "1", "--eval-tasks", "20"); err != nil {
			t.Fatalf("train: %v\n%s", err, stderr)
		}
	}
	bad := filepath.Join(dir, "bad")
	if err := os.MkdirAll(bad, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bad, "metrics.jsonl"), []byte("{\"step\":1}\n[\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := execute("runs", dir)
	if err != nil {
		t.Fatalf("runs: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "skipped bad: ") || !strings.Contains(stderr, "bad/metrics.jsonl:2") || !strings.Contains(stderr, "2 runs, 1 skipped") {
		t.Errorf("stderr %q: want the skipped run with its file and line, and the count", stderr)
	}
	b, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`<th class="k">train.hidden</th>`, `<td class="k">[8]</td>`, `<td class="k">[12]</td>`, `href="./h8/index.html"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the index lacks %s", want)
		}
	}
	if _, _, err := execute("runs", filepath.Join(dir, "h8")); err == nil || !strings.Contains(err.Error(), "training run's directory") {
		t.Errorf("runs RUN_DIR: err %v, want a refusal", err)
	}
}
