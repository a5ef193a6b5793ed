package llm

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// echoServer answers each request with its first message's content and
// usage; the server counts what it received.
func echoServer(t *testing.T, content func(q string) *string) *fakeServer {
	return newFakeServer(t, func(w http.ResponseWriter, _ *http.Request, _ int, req *wireRequest) {
		c := content(req.Messages[0].Content)
		body := map[string]any{"model": req.Model, "choices": []any{map[string]any{"finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": c}}},
			"usage": map[string]any{"prompt_tokens": 5, "completion_tokens": 7}}
		writeJSON(w, http.StatusOK, body)
	})
}

// The cache keeps every answer of many concurrent callers, durably: a
// client of a reopened cache (as after a kill: bbolt's last commit is
// whole) sends none of those requests again, and a request that differs
// in any determining part (message, seed, model, temperature) is sent.
func TestCacheAnswersWhatItHolds(t *testing.T) {
	srv := echoServer(t, func(q string) *string { s := "re: " + q; return &s })
	path := filepath.Join(t.TempDir(), "c.cache")
	cache, err := OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenCache(path); !errors.Is(err, ErrCacheBusy) {
		t.Errorf("a second writer of the cache: %v, want ErrCacheBusy", err)
	}
	c, err := NewClient(Config{BaseURL: srv.URL, Model: "m", Concurrency: 8, Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	seed := int64(3)
	ask := func(c *Client, i int) (Response, error) {
		return c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: fmt.Sprint("q", i)}}, Seed: &seed})
	}
	var wg sync.WaitGroup
	for i := range 64 {
		wg.Go(func() {
			if _, err := ask(c, i); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if got := srv.hits.Load(); got != 64 {
		t.Fatalf("server saw %d requests, want 64", got)
	}
	if st := cache.Stats(); st.Responses != 64 || st.Added != 64 || st.Bytes == 0 {
		t.Fatalf("cache stats %+v, want 64 responses added", st)
	}
	cache.Close()

	cache, err = OpenCache(path)
	if err != nil {
		t.Fatal(err)
	}
	defer cache.Close()
	c2, _ := NewClient(Config{BaseURL: srv.URL, Model: "m", Concurrency: 8, Cache: cache})
	for i := range 64 {
		r, err := ask(c2, i)
		if err != nil || r.Content != fmt.Sprint("re: q", i) || r.Usage.CompletionTokens != 7 {
			t.Fatalf("cached answer %d: %+v %v", i, r, err)
		}
	}
	if got := srv.hits.Load(); got != 64 {
		t.Errorf("a client of the reopened cache sent %d requests, want 0", got-64)
	}
	if st := c2.Stats(); st.Cached != 64 || st.PromptTokens != 0 {
		t.Errorf("stats %+v: want 64 cached answers, no tokens paid", st)
	}
	seed = 4
	ask(c2, 0)
	c3, _ := NewClient(Config{BaseURL: srv.URL, Model: "other", Cache: cache})
	ask(c3, 0)
	temp := 0.5
	c4, _ := NewClient(Config{BaseURL: srv.URL, Model: "m", Temperature: &temp, Cache: cache})
	ask(c4, 0)
	if got := srv.hits.Load() - 64; got != 3 {
		t.Errorf("another seed, model and temperature sent %d requests, want 3", got)
	}

	// Caches of several shards join into one; another reads them read-only.
	other := filepath.Join(t.TempDir(), "o.cache")
	oc, _ := OpenCache(other)
	oc.Close()
	cache.Close()
	merged := filepath.Join(t.TempDir(), "m.cache")
	if n, err := MergeCaches(merged, []string{path, other}); err != nil || n != 67 {
		t.Fatalf("MergeCaches: %d %v, want 67 added", n, err)
	}
	ro, _ := OpenCache(filepath.Join(t.TempDir(), "new.cache"))
	defer ro.Close()
	if err := ro.AddReadOnly(merged); err != nil {
		t.Fatal(err)
	}
	c5, _ := NewClient(Config{BaseURL: srv.URL, Model: "m", Cache: ro})
	seed = 3
	before := srv.hits.Load()
	if r, err := ask(c5, 9); err != nil || r.Content != "re: q9" || srv.hits.Load() != before {
		t.Errorf("read-only cache: %+v %v, %d requests", r, err, srv.hits.Load()-before)
	}
}

// A null content is an empty reply, counted; a reply over the cap is an
// error naming both sizes, not retried.
func TestNullContentAndReplyCap(t *testing.T) {
	long := strings.Repeat("x", 2000)
	srv := echoServer(t, func(q string) *string {
		switch q {
		case "null":
			return nil
		case "long":
			return &long
		}
		s := "ok"
		return &s
	})
	c, _ := NewClient(Config{BaseURL: srv.URL, Model: "m", MaxReplyBytes: 1000})
	r, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "null"}}})
	if err != nil || r.Content != "" || !r.Null || c.Stats().NullContent != 1 {
		t.Errorf("null content: %+v %v, stats %+v", r, err, c.Stats())
	}
	_, err = c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "long"}}})
	if !errors.Is(err, ErrReplyTooLong) || !strings.Contains(err.Error(), "2000 bytes") || !strings.Contains(err.Error(), "cap of 1000") {
		t.Errorf("long reply: %v", err)
	}
	if st := c.Stats(); st.Attempts != 2 || st.Failures != 1 {
		t.Errorf("stats %+v: the long reply was retried or not counted a failure", st)
	}
}
