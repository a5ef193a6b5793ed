package llm_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"

	"github.com/mpdf/mpdf/answer"
	"github.com/mpdf/mpdf/env/llm"
	"github.com/mpdf/mpdf/metapolicy"
)

// Collect plays a policy against a chat-completions server and writes
// every episode to a file as it ends: what mpdf collect runs. Here the
// server is a stand-in that answers every solve and refine with 42 and
// every judge call with a confidence; a real one is vLLM, llama-server or
// Ollama at its /v1 root.
func ExampleCollect() {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages []llm.Message `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		reply := "6 * 7 = 42, so \\boxed{42}."
		if strings.HasPrefix(req.Messages[len(req.Messages)-1].Content, "Here is a problem and a proposed solution.") {
			reply = "Confidence: 90"
		}
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": reply}}},
		})
	}))
	defer srv.Close()

	dir, err := os.MkdirTemp("", "collect-example")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	debate, err := metapolicy.ParseHeuristic("debate") // every agent refines every round
	if err != nil {
		panic(err)
	}
	c, err := llm.Collect(llm.CollectConfig{
		Client:   llm.Config{BaseURL: srv.URL, Model: "stand-in"},
		Tasks:    []llm.Task{{ID: "q1", Question: "What is 6 * 7?", Gold: "42", Kind: answer.GSM8K}},
		Episodes: 2, Rounds: 1, Policy: debate, Seed: 1,
		Out: filepath.Join(dir, "episodes.jsonl"),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(c.Written, "episodes written;", c.Result.Correct, "of", c.Result.Scored, "correct;", c.Stats.Requests, "requests")
	// Output:
	// 2 episodes written; 2 of 2 correct; 24 requests
}
