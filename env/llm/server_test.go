package llm

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// fakeServer is a real HTTP server on 127.0.0.1 speaking the
// chat-completions format. Each request goes to script with its number
// (1-based) and decoded body; script writes the answer.
type fakeServer struct {
	*httptest.Server
	script func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest)

	hits                  atomic.Int64
	inflight, maxInflight atomic.Int64

	mu       sync.Mutex
	requests []wireRequest
	headers  []http.Header
	paths    []string
}

func newFakeServer(t testing.TB, script func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest)) *fakeServer {
	t.Helper()
	s := &fakeServer{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

func (s *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	in := s.inflight.Add(1)
	defer s.inflight.Add(-1)
	for {
		m := s.maxInflight.Load()
		if in <= m || s.maxInflight.CompareAndSwap(m, in) {
			break
		}
	}
	n := int(s.hits.Add(1))
	var req wireRequest
	body, _ := io.ReadAll(r.Body)
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, `{"error":{"message":"bad json from client"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	s.headers = append(s.headers, r.Header.Clone())
	s.paths = append(s.paths, r.URL.Path)
	s.mu.Unlock()
	s.script(w, r, n, &req)
}

// url is the API root clients are given.
func (s *fakeServer) url() string { return s.URL + "/v1" }

func (s *fakeServer) recorded() []wireRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]wireRequest(nil), s.requests...)
}

// completion writes a successful answer whose usage counts bytes: prompt
// tokens = the bytes of all message contents, completion tokens = the
// bytes of the reply. Tests recompute both from what was recorded.
func completion(w http.ResponseWriter, req *wireRequest, reply string) {
	p := 0
	for _, m := range req.Messages {
		p += len(m.Content)
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": req.Model,
		"choices": []any{map[string]any{
			"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": reply},
		}},
		"usage": map[string]any{"prompt_tokens": p, "completion_tokens": len(reply), "total_tokens": p + len(reply)},
	})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// apiError writes an OpenAI-style error body.
func apiError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})
}

// hang waits until the client gives up (or a bound passes, so that a
// broken client cannot hang the test run).
func hang(r *http.Request) {
	select {
	case <-r.Context().Done():
	case <-time.After(5 * time.Second):
	}
}

// testClient is a client of s with fast retries whose waits are recorded,
// not spent.
func testClient(t *testing.T, s *fakeServer, edit func(*Config)) (*Client, *[]time.Duration) {
	t.Helper()
	cfg := Config{BaseURL: s.url(), Model: "test-model", Timeout: 2 * time.Second,
		Backoff: Backoff{Initial: 10 * time.Millisecond, Max: time.Second}}
	if edit != nil {
		edit(&cfg)
	}
	c, err := NewClient(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	waits := &[]time.Duration{}
	c.sleep = func(ctx context.Context, d time.Duration) error {
		mu.Lock()
		*waits = append(*waits, d)
		mu.Unlock()
		return ctx.Err()
	}
	return c, waits
}

// model is the fake "model" of the game tests. Agents are told apart by
// their persona ("agent K"). Solve: agent 0 answers 42, the others 41.
// Refine: 42. Concede: writes 7 (the game must keep the adopted answer).
// Judge: 90 for a solution ending in 42, 30 for one in 41, else an
// unreadable reply.
func model(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
	last := req.Messages[len(req.Messages)-1].Content
	agent := -1
	if req.Messages[0].Role == "system" {
		fmt.Sscanf(req.Messages[0].Content, "agent %d", &agent)
	}
	var reply string
	switch {
	case strings.HasPrefix(last, "Here is a problem and a proposed solution"):
		switch {
		case strings.Contains(last, `\boxed{42}`):
			reply = "The reasoning holds.\nConfidence: 90"
		case strings.Contains(last, `\boxed{41}`):
			reply = "Confidence: 30%"
		default:
			reply = "I cannot tell."
		}
	case strings.HasPrefix(last, "These are the solutions"):
		reply = fmt.Sprintf("Step 1: agent %d reads the others.\nStep 2: maybe they are right.\nSo \\boxed{42}.", agent)
	case strings.HasPrefix(last, "This is the solution to the problem from another agent"):
		reply = `I adopt it: \boxed{7}`
	default:
		ans := 41
		if agent == 0 {
			ans = 42
		}
		reply = fmt.Sprintf("1. Agent %d adds.\n2. I think it divides.\nThe answer is \\boxed{%d}.", agent, ans)
	}
	completion(w, req, reply)
}
