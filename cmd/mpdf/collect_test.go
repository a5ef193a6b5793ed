package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// chatServer is a loopback server speaking chat completions: it answers
// every solve or refine prompt with reply and every judge prompt with
// "Confidence: 80", and records the model and key of each request.
type chatServer struct {
	*httptest.Server
	mu     sync.Mutex
	models map[string]int
	keys   map[string]int
}

func newChatServer(t *testing.T, reply string) *chatServer {
	s := &chatServer{models: map[string]int{}, keys: map[string]int{}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Messages []struct {
				Role    string `json:"role"`
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		s.mu.Lock()
		s.models[req.Model]++
		s.keys[r.Header.Get("Authorization")]++
		s.mu.Unlock()
		content := reply
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "How likely is it") {
			content = "Confidence: 80"
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "c1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
		})
	}))
	t.Cleanup(s.Close)
	return s
}

func TestCollectAgainstLoopbackServer(t *testing.T) {
	srv := newChatServer(t, "40 + 2 = 42, so the total is \\boxed{42}.")
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(tasks, []byte(`{"id":"a","question":"What is 40 + 2?","gold":"40 + 2 = 42\n#### 42","kind":"gsm"}
{"id":"b","question":"What is 3 + 4?","gold":"7","kind":"gsm"}
`), 0o644)
	// The environment names another server and model: the flags win, the
	// key comes from the environment.
	t.Setenv("MPDF_OPENAI_BASE_URL", "http://127.0.0.1:1/v1")
	t.Setenv("MPDF_OPENAI_MODEL", "env-model")
	t.Setenv("MPDF_OPENAI_API_KEY", "env-key")
	out := filepath.Join(dir, "live.jsonl")
	stdout := mustRun(t, "collect", "--base-url", srv.URL+"/v1", "--model", "flag-model", "--tasks-file", tasks,
		"--policy", "debate", "--rounds", "1", "--agents", "2", "--timeout", "10s", "--retries", "0", "-q", "--out", out)
	if !strings.Contains(stdout, "wrote 2 episodes") || !strings.Contains(stdout, "0 failed") {
		t.Errorf("collect summary:\n%s", stdout)
	}
	srv.mu.Lock()
	if len(srv.models) != 1 || srv.models["flag-model"] == 0 || len(srv.keys) != 1 || srv.keys["Bearer env-key"] == 0 {
		t.Errorf("the server saw models %v and keys %v; want only flag-model and the environment's key", srv.models, srv.keys)
	}
	srv.mu.Unlock()

	recs, c := readAll(t, out)
	if c.Episodes != 2 || c.Rejected != 0 {
		t.Fatalf("counts %+v, want 2 episodes", c)
	}
	golds := map[string]string{}
	for _, rec := range recs {
		ep := rec.Episode
		golds[ep.Task] = ep.Gold
		if ep.Source != "openai:flag-model" || ep.Agents != 2 || len(ep.Rounds) != 2 {
			t.Fatalf("episode %s: source %q, %d agents, %d rounds", ep.ID, ep.Source, ep.Agents, len(ep.Rounds))
		}
		for r, round := range ep.Rounds {
			for i, u := range round.Turns {
				if u.Answer != "42" || u.Confidence == nil || *u.Confidence != 0.8 || len(u.Exchanges) == 0 {
					t.Errorf("%s round %d agent %d: answer %q, confidence %v, %d exchanges; want 42, 0.8, recorded calls",
						ep.ID, r, i, u.Answer, u.Confidence, len(u.Exchanges))
				}
			}
		}
	}
	if golds["a"] != "42" || golds["b"] != "7" {
		t.Errorf("golds %v: want the reference solution read as 42", golds)
	}

	// Without a server anywhere, a clear error.
	t.Setenv("MPDF_OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_BASE_URL", "")
	_, err := runCmd(t, "collect", "--tasks-file", tasks, "--policy", "debate", "-q", "--out", filepath.Join(dir, "x.jsonl"))
	if err == nil || !strings.Contains(err.Error(), "base URL") {
		t.Errorf("no server: error %v, want one about the base URL", err)
	}
	if _, err := runCmd(t, "collect", "--api", "anthropic", "--tasks-file", tasks, "--policy", "debate", "--out", filepath.Join(dir, "y.jsonl")); err == nil ||
		!strings.Contains(err.Error(), `--api "anthropic": only openai`) {
		t.Errorf("--api anthropic: error %v", err)
	}
}
