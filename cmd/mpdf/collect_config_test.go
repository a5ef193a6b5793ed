package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env/llm"
)

// TestCollectNeedsModelAndURL: the library's "empty" base URL and model
// (llm.ErrNoBaseURL, llm.ErrNoModel) reach the user as the flag and the
// variable that set them, and nothing is written.
func TestCollectNeedsModelAndURL(t *testing.T) {
	for _, n := range append(append([]string{}, llm.EnvBaseURL...), llm.EnvModel...) {
		t.Setenv(n, "")
	}
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.jsonl")
	if err := os.WriteFile(tasks, []byte(`{"id":"t1","question":"What is 2+2?","gold":"4","kind":"gsm8k"}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	for _, c := range []struct {
		args []string
		want string
	}{
		{nil, "llm: config: base URL: empty (set --base-url or " + llm.EnvBaseURL[0] + ")"},
		{[]string{"--base-url", "http://127.0.0.1:9/v1"}, "llm: config: model: empty (set --model or " + llm.EnvModel[0] + ")"},
	} {
		_, err := runCmd(t, append([]string{"collect", "--policy", "debate", "--tasks-file", tasks, "--out", out}, c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("collect %v: %v, want %q", c.args, err, c.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("collect %v wrote its output", c.args)
		}
	}
}
