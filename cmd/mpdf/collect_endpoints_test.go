package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// collect spreads over the replicas given by --base-url and
// --base-urls-file, and --json reports each one's calls.
func TestCollectOverReplicas(t *testing.T) {
	a, b := newChatServer(t, `So \boxed{42}.`), newChatServer(t, `So \boxed{42}.`)
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id":"a","question":"What is 40 + 2?","gold":"42","kind":"gsm"}
{"id":"b","question":"What is 41 + 1?","gold":"42","kind":"gsm"}
`), 0o644)
	urls := filepath.Join(dir, "replicas.txt")
	os.WriteFile(urls, []byte("# the second replica\n"+b.URL+"/v1\n"), 0o644)
	args := []string{"collect", "--base-url", a.URL + "/v1", "--base-urls-file", urls, "--model", "m", "--tasks-file", tasks,
		"--policy", "debate", "--rounds", "1", "--agents", "2", "--concurrency", "2", "-q", "--json"}
	stdout := mustRun(t, append(args, "--out", filepath.Join(dir, "live.jsonl"))...)
	var got struct {
		Endpoints []struct {
			URL      string `json:"url"`
			Attempts int    `json:"attempts"`
			Live     bool   `json:"live"`
		} `json:"endpoints"`
	}
	if err := json.Unmarshal([]byte(stdout), &got); err != nil || len(got.Endpoints) != 2 ||
		got.Endpoints[1].URL != b.URL+"/v1/chat/completions" || got.Endpoints[0].Attempts == 0 || got.Endpoints[1].Attempts == 0 {
		t.Errorf("--json endpoints %+v (%v) from:\n%s", got.Endpoints, err, stdout)
	}

	os.WriteFile(urls, []byte(b.URL+"/v1\n"+"10.0.0.1:8000\n"), 0o644)
	if _, err := runCmd(t, append(args, "--out", filepath.Join(dir, "x.jsonl"))...); err == nil ||
		!strings.Contains(err.Error(), "--base-urls-file: "+urls+":2: base URL \"10.0.0.1:8000\"") {
		t.Errorf("a bad line in --base-urls-file: %v", err)
	}
}
