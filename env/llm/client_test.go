package llm

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func userMsg(s string) Request { return Request{Messages: []Message{{Role: "user", Content: s}}} }

func TestChatSendsTheRequest(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		completion(w, req, "hello")
	})
	temp := 0.0
	c, _ := testClient(t, s, func(c *Config) {
		c.APIKey = "sk-test"
		c.Temperature = &temp
		c.MaxTokens = 64
		c.BaseURL += "/" // a trailing slash is dropped
	})
	seed := int64(99)
	resp, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "hi"}}, Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "hello" || resp.Attempts != 1 || resp.FinishReason != "stop" {
		t.Errorf("response %+v", resp)
	}
	if u := resp.Usage; !u.Known || u.PromptTokens != 2 || u.CompletionTokens != 5 {
		t.Errorf("usage %+v, want 2 prompt and 5 completion tokens, known", u)
	}
	req := s.recorded()[0]
	if req.Model != "test-model" || req.Temperature == nil || *req.Temperature != 0 || req.MaxTokens != 64 ||
		req.Seed == nil || *req.Seed != 99 || req.Stream || len(req.Messages) != 1 || req.Messages[0].Content != "hi" {
		t.Errorf("server got %+v", req)
	}
	if p := s.paths[0]; p != "/v1/chat/completions" {
		t.Errorf("path %q", p)
	}
	if a := s.headers[0].Get("Authorization"); a != "Bearer sk-test" {
		t.Errorf("Authorization %q", a)
	}
	st := c.Stats()
	if st.Requests != 1 || st.Attempts != 1 || st.PromptTokens != 2 || st.CompletionTokens != 5 || st.Failures != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestChatOmitsUnsetFields(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		completion(w, req, "ok")
	})
	c, _ := testClient(t, s, nil)
	if _, err := c.Chat(context.Background(), userMsg("x")); err != nil {
		t.Fatal(err)
	}
	req := s.recorded()[0]
	if req.Temperature != nil || req.MaxTokens != 0 || req.Seed != nil {
		t.Errorf("server got temperature %v, max_tokens %d, seed %v; want none", req.Temperature, req.MaxTokens, req.Seed)
	}
	if a := s.headers[0].Get("Authorization"); a != "" {
		t.Errorf("Authorization %q sent without a key", a)
	}
}

func TestChatRetries5xxWithBackoff(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		if n <= 2 {
			apiError(w, http.StatusInternalServerError, "engine warming up")
			return
		}
		completion(w, req, "finally")
	})
	c, waits := testClient(t, s, nil)
	resp, err := c.Chat(context.Background(), userMsg("x"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Content != "finally" || resp.Attempts != 3 || s.hits.Load() != 3 {
		t.Errorf("content %q after %d attempts, %d hits; want finally after 3", resp.Content, resp.Attempts, s.hits.Load())
	}
	if want := []time.Duration{10 * time.Millisecond, 20 * time.Millisecond}; !slices.Equal(*waits, want) {
		t.Errorf("waits %v, want %v (exponential, no jitter)", *waits, want)
	}
	if st := c.Stats(); st.Retries != 2 || st.Attempts != 3 || st.Failures != 0 {
		t.Errorf("stats %+v", st)
	}
}

func TestChatGivesUpAfterMaxRetries(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		apiError(w, http.StatusServiceUnavailable, "overloaded")
	})
	c, waits := testClient(t, s, func(c *Config) { c.MaxRetries = new(2) })
	_, err := c.Chat(context.Background(), userMsg("x"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 503 || apiErr.Message != "overloaded" {
		t.Fatalf("error %v, want an APIError 503 overloaded", err)
	}
	if !strings.Contains(err.Error(), "giving up after 3 attempts") || !strings.Contains(err.Error(), "overloaded") {
		t.Errorf("error %q does not say it gave up or why", err)
	}
	if s.hits.Load() != 3 || len(*waits) != 2 || c.Stats().Failures != 1 {
		t.Errorf("%d hits, %d waits, stats %+v; want 3 hits, 2 waits, 1 failure", s.hits.Load(), len(*waits), c.Stats())
	}
}

func TestChatNoRetries(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		apiError(w, http.StatusBadGateway, "proxy down")
	})
	c, waits := testClient(t, s, func(c *Config) { c.MaxRetries = new(0) })
	if _, err := c.Chat(context.Background(), userMsg("x")); err == nil {
		t.Fatal("no error")
	}
	if s.hits.Load() != 1 || len(*waits) != 0 {
		t.Errorf("%d hits, %d waits with MaxRetries = 0; want 1 and 0", s.hits.Load(), len(*waits))
	}
}

func TestChatHonoursRetryAfter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   time.Duration
	}{
		{"seconds", map[string]string{"Retry-After": "2"}, 2 * time.Second},
		{"ms", map[string]string{"retry-after-ms": "1500", "Retry-After": "9"}, 1500 * time.Millisecond},
		{"capped", map[string]string{"Retry-After": "3600"}, 5 * time.Second},
		{"shorter than backoff", map[string]string{"Retry-After": "0.001"}, 10 * time.Millisecond},
		{"garbage", map[string]string{"Retry-After": "soon"}, 10 * time.Millisecond},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
				if n == 1 {
					for k, v := range tc.header {
						w.Header().Set(k, v)
					}
					apiError(w, http.StatusTooManyRequests, "rate limited")
					return
				}
				completion(w, req, "ok")
			})
			c, waits := testClient(t, s, func(c *Config) { c.MaxRetryAfter = 5 * time.Second })
			resp, err := c.Chat(context.Background(), userMsg("x"))
			if err != nil || resp.Attempts != 2 {
				t.Fatalf("err %v, %d attempts; want success on the 2nd", err, resp.Attempts)
			}
			if !slices.Equal(*waits, []time.Duration{tc.want}) {
				t.Errorf("waits %v, want [%v]", *waits, tc.want)
			}
		})
	}
}

func TestChatClientErrorsAreNotRetried(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		body   string
		want   string
	}{
		{"openai 400", 400, `{"error":{"message":"max_tokens must be at least 1","type":"invalid_request_error","code":null}}`, "max_tokens must be at least 1"},
		{"llama.cpp 401", 401, `{"error":{"code":401,"message":"Invalid API Key","type":"authentication_error"}}`, "Invalid API Key"},
		{"ollama 404", 404, `{"error":"model \"llama9\" not found, try pulling it first"}`, `model "llama9" not found`},
		{"vllm 404", 404, `{"object":"error","message":"The model ` + "`x`" + ` does not exist.","type":"NotFoundError","code":404}`, "does not exist"},
		{"fastapi 422", 422, `{"detail":"field required"}`, "field required"},
		{"plain text 400", 400, "bad request: no messages\n", "bad request: no messages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
				w.WriteHeader(tc.status)
				w.Write([]byte(tc.body))
			})
			c, waits := testClient(t, s, nil)
			_, err := c.Chat(context.Background(), userMsg("x"))
			var apiErr *APIError
			if !errors.As(err, &apiErr) || apiErr.StatusCode != tc.status || apiErr.Temporary() {
				t.Fatalf("error %v, want a permanent APIError %d", err, tc.status)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not quote the server's %q", err, tc.want)
			}
			if s.hits.Load() != 1 || len(*waits) != 0 {
				t.Errorf("%d hits, %d waits; want 1, 0 (no retry)", s.hits.Load(), len(*waits))
			}
		})
	}
}

func TestChatTimeoutIsRetriedThenFails(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		hang(r)
	})
	c, waits := testClient(t, s, func(c *Config) { c.Timeout = 50 * time.Millisecond; c.MaxRetries = new(2) })
	_, err := c.Chat(context.Background(), userMsg("x"))
	if !errors.Is(err, ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v, want ErrTimeout (and not the caller's deadline)", err)
	}
	if !strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Errorf("error %q", err)
	}
	// Count attempts on the client's side: on a loaded machine an attempt
	// can time out before the server has seen it.
	if a := c.Stats().Attempts; a != 3 || len(*waits) != 2 || s.hits.Load() < 1 {
		t.Errorf("%d attempts, %d waits, %d hits; want 3, 2, ≥ 1", a, len(*waits), s.hits.Load())
	}
}

func TestChatSlowThenFast(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		if n == 1 {
			hang(r)
			return
		}
		completion(w, req, "quick")
	})
	// The timeout must let the quick answers through even on a loaded
	// machine; retries cover one that is late all the same.
	c, _ := testClient(t, s, func(c *Config) { c.Timeout = 250 * time.Millisecond; c.MaxRetries = new(5) })
	resp, err := c.Chat(context.Background(), userMsg("x"))
	if err != nil || resp.Content != "quick" || resp.Attempts < 2 || s.hits.Load() < 2 {
		t.Fatalf("%+v, %v after %d hits; want quick after the hanging attempt", resp, err, s.hits.Load())
	}
}

func TestChatSlowBody(t *testing.T) {
	// Headers come at once, the body never ends: the timeout covers reading too.
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(200)
		w.Write([]byte(`{"choices":[`))
		w.(http.Flusher).Flush()
		hang(r)
	})
	c, _ := testClient(t, s, func(c *Config) { c.Timeout = 100 * time.Millisecond; c.MaxRetries = new(1) })
	_, err := c.Chat(context.Background(), userMsg("x"))
	if a := c.Stats().Attempts; !errors.Is(err, ErrTimeout) || a != 2 || s.hits.Load() < 1 {
		t.Fatalf("error %v after %d attempts (%d hits), want ErrTimeout after 2", err, a, s.hits.Load())
	}
}

func TestChatBrokenBodyIsRetried(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		if n == 1 { // promise 1000 bytes, send 20, hang up
			w.Header().Set("Content-Length", "1000")
			w.WriteHeader(200)
			w.Write([]byte(`{"choices":[{"messa`))
			return
		}
		completion(w, req, "whole")
	})
	c, _ := testClient(t, s, nil)
	resp, err := c.Chat(context.Background(), userMsg("x"))
	if err != nil || resp.Content != "whole" || resp.Attempts != 2 {
		t.Fatalf("%+v, %v; want the whole answer on the 2nd attempt", resp, err)
	}
}

func TestChatMalformedAnswers(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"not json", "<html>502 from a proxy that says 200</html>", "<html>502"},
		{"truncated json", `{"choices":[{"message":{"content":"hi"`, "unexpected end"},
		{"no choices", `{"id":"x","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":0}}`, "no choices"},
		{"choices missing", `{"id":"x"}`, "no choices"},
		{"no message", `{"choices":[{"index":0,"text":"legacy completion"}]}`, "no message"},
		{"negative usage", `{"choices":[{"message":{"content":"hi"}}],"usage":{"prompt_tokens":-3,"completion_tokens":2}}`, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
				w.WriteHeader(200)
				w.Write([]byte(tc.body))
			})
			c, _ := testClient(t, s, nil)
			_, err := c.Chat(context.Background(), userMsg("x"))
			if !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrMalformed mentioning %q", err, tc.want)
			}
			if s.hits.Load() != 1 {
				t.Errorf("%d hits, want 1 (malformed answers are not retried)", s.hits.Load())
			}
		})
	}
}

func TestChatErrorObjectIn200(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		w.Write([]byte(`{"error":{"message":"context length exceeded","type":"invalid_request_error"}}`))
	})
	c, _ := testClient(t, s, nil)
	_, err := c.Chat(context.Background(), userMsg("x"))
	var apiErr *APIError
	if !errors.As(err, &apiErr) || apiErr.Message != "context length exceeded" || s.hits.Load() != 1 {
		t.Fatalf("error %v after %d hits", err, s.hits.Load())
	}
}

func TestChatMissingUsageAndNullContent(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		w.Write([]byte(`{"choices":[{"message":{"role":"assistant","content":null,"reasoning_content":"hmm"},"finish_reason":"length"}]}`))
	})
	c, _ := testClient(t, s, nil)
	resp, err := c.Chat(context.Background(), userMsg("x"))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Usage.Known || resp.Content != "" || resp.Reasoning != "hmm" || resp.FinishReason != "length" {
		t.Errorf("response %+v", resp)
	}
	if st := c.Stats(); st.MissingUsage != 1 || st.PromptTokens != 0 {
		t.Errorf("stats %+v, want 1 answer with missing usage", st)
	}
}

func TestChatConnectionRefusedIsRetried(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {})
	url := s.url()
	s.Close() // nothing listens there any more
	c, err := NewClient(Config{BaseURL: url, Model: "m", MaxRetries: new(2), Backoff: Backoff{Initial: time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	c.sleep = func(ctx context.Context, d time.Duration) error { return nil }
	_, err = c.Chat(context.Background(), userMsg("x"))
	if !errors.Is(err, errTransport) || !strings.Contains(err.Error(), "giving up after 3 attempts") {
		t.Fatalf("error %v", err)
	}
	if st := c.Stats(); st.Attempts != 3 {
		t.Errorf("%d attempts, want 3", st.Attempts)
	}
}

func TestChatContextCancel(t *testing.T) {
	arrived := make(chan struct{}, 1)
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		arrived <- struct{}{}
		hang(r)
	})
	c, waits := testClient(t, s, nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-arrived; cancel() }()
	_, err := c.Chat(ctx, userMsg("x"))
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrTimeout) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
	if s.hits.Load() != 1 || len(*waits) != 0 {
		t.Errorf("%d hits, %d waits after cancel; want 1, 0", s.hits.Load(), len(*waits))
	}
}

func TestChatContextCancelDuringBackoff(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		apiError(w, 500, "boom")
	})
	// Real sleeping, an hour long: only the cancel can end it.
	c, err := NewClient(Config{BaseURL: s.url(), Model: "m", Backoff: Backoff{Initial: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	c.sleep = func(_ context.Context, d time.Duration) error {
		cancel()
		return sleepCtx(ctx, d)
	}
	_, err = c.Chat(ctx, userMsg("x"))
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("error %v, want context.Canceled naming the failure it waited on", err)
	}
}

func TestChatConcurrencyLimit(t *testing.T) {
	const limit, calls = 2, 8
	var s *fakeServer
	s = newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		// Hold each request until the limit is reached (or a bound
		// passes), then a little longer, so that an unlimited client would
		// pile more requests on top.
		deadline := time.Now().Add(2 * time.Second)
		for s.inflight.Load() < limit && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
		time.Sleep(10 * time.Millisecond)
		completion(w, req, "ok")
	})
	c, _ := testClient(t, s, func(c *Config) { c.Concurrency = limit })
	var wg sync.WaitGroup
	errs := make([]error, calls)
	for i := range calls {
		wg.Go(func() { _, errs[i] = c.Chat(context.Background(), userMsg("x")) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if m := s.maxInflight.Load(); m != limit {
		t.Errorf("at most %d requests in flight, want exactly the limit %d", m, limit)
	}
}

func TestBackoffSchedule(t *testing.T) {
	mk := func(seed uint64, jitter float64) *Client {
		c, err := NewClient(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m",
			Backoff: Backoff{Initial: 100 * time.Millisecond, Max: time.Second, Jitter: jitter, Seed: seed}})
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := mk(1, 0)
	var got []time.Duration
	for k := 1; k <= 6; k++ {
		got = append(got, c.backoff(k))
	}
	want := []time.Duration{100e6, 200e6, 400e6, 800e6, 1e9, 1e9}
	if !slices.Equal(got, want) {
		t.Errorf("backoff %v, want %v", got, want)
	}
	a, b, other := mk(7, 0.5), mk(7, 0.5), mk(8, 0.5)
	same, differ := true, false
	for k := 1; k <= 6; k++ {
		da, db, do := a.backoff(k), b.backoff(k), other.backoff(k)
		if da != db {
			same = false
		}
		if da != do {
			differ = true
		}
		if da > want[k-1] || da < want[k-1]/2 {
			t.Errorf("retry %d: jittered wait %v outside [%v, %v]", k, da, want[k-1]/2, want[k-1])
		}
	}
	if !same || !differ {
		t.Errorf("jitter: same seed same waits %v, other seed other waits %v", same, differ)
	}
}

func TestRetryAfterParsing(t *testing.T) {
	now := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		ms, std string
		want    time.Duration
	}{
		{"", "", 0},
		{"", "3", 3 * time.Second},
		{"", "0.5", 500 * time.Millisecond},
		{"250", "", 250 * time.Millisecond},
		{"x", "2", 2 * time.Second},
		{"", "-1", 0},
		{"", now.Add(7 * time.Second).Format(time.RFC1123), 7 * time.Second},
		{"", now.Add(-7 * time.Second).Format(time.RFC1123), 0},
		{"", "tomorrow", 0},
	} {
		if got := retryAfter(tc.ms, tc.std, now); got != tc.want {
			t.Errorf("retryAfter(%q, %q) = %v, want %v", tc.ms, tc.std, got, tc.want)
		}
	}
}

func TestConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want string // error substring; "" = valid
	}{
		{Config{Model: "m"}, "base URL: empty"},
		{Config{BaseURL: "127.0.0.1:8080/v1", Model: "m"}, "want http"},
		{Config{BaseURL: "ftp://h/v1", Model: "m"}, "want http"},
		{Config{BaseURL: "http://h/v1?x=1", Model: "m"}, "query"},
		{Config{BaseURL: "http://h/v1"}, "model: empty"},
		{Config{BaseURL: "http://h/v1", Model: "m", Timeout: -1}, "timeout"},
		{Config{BaseURL: "http://h/v1", Model: "m", Concurrency: -2}, "concurrency"},
		{Config{BaseURL: "http://h/v1", Model: "m", Backoff: Backoff{Jitter: 1.5}}, "jitter"},
		{Config{BaseURL: "http://h/v1", Model: "m", Temperature: new(-0.5)}, "temperature"},
		{Config{BaseURL: "http://h/v1", Model: "m", MaxRetries: new(-1)}, "max retries -1"},
		{Config{BaseURL: "http://h/v1", Model: "m", MaxRetries: new(0)}, ""},
		{Config{BaseURL: "http://h/v1", Model: "m"}, ""},
	} {
		_, err := NewClient(tc.cfg)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%+v: %v", tc.cfg, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%+v: error %v, want one about %q", tc.cfg, err, tc.want)
		}
	}
	if _, err := NewClient(Config{Model: "m"}); !errors.Is(err, ErrNoBaseURL) || strings.Contains(err.Error(), "--") {
		t.Errorf("no base URL: %v, want ErrNoBaseURL in library words", err)
	}
	if _, err := NewClient(Config{BaseURL: "http://h/v1"}); !errors.Is(err, ErrNoModel) || strings.Contains(err.Error(), "--") {
		t.Errorf("no model: %v, want ErrNoModel in library words", err)
	}
	c, _ := NewClient(Config{BaseURL: "http://h:1/v1/", Model: "m"})
	if c.Endpoint() != "http://h:1/v1/chat/completions" {
		t.Errorf("endpoint %q", c.Endpoint())
	}
	got := c.Config()
	if got.Timeout != DefaultTimeout || *got.MaxRetries != DefaultMaxRetries || got.Concurrency != DefaultConcurrency ||
		got.Backoff.Initial != DefaultBackoffInitial || got.Backoff.Max != DefaultBackoffMax || got.MaxRetryAfter != DefaultMaxRetryAfter {
		t.Errorf("defaults not filled: %+v", got)
	}
	c, _ = NewClient(Config{BaseURL: "http://h:1/api/chat/completions", Model: "m"})
	if c.Endpoint() != "http://h:1/api/chat/completions" {
		t.Errorf("full endpoint rewritten to %q", c.Endpoint())
	}
}

func TestConfigFromEnv(t *testing.T) {
	t.Setenv("MPDF_OPENAI_BASE_URL", "")
	t.Setenv("OPENAI_BASE_URL", "http://fallback/v1")
	t.Setenv("MPDF_OPENAI_MODEL", "qwen")
	t.Setenv("MPDF_OPENAI_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "sk-1")
	c := ConfigFromEnv()
	if c.BaseURL != "http://fallback/v1" || c.Model != "qwen" || c.APIKey != "sk-1" {
		t.Errorf("%+v", c)
	}
	t.Setenv("MPDF_OPENAI_BASE_URL", "http://first/v1")
	t.Setenv("MPDF_OPENAI_API_KEY", "sk-mpdf")
	c = ConfigFromEnv()
	if c.BaseURL != "http://first/v1" || c.APIKey != "sk-mpdf" {
		t.Errorf("MPDF_ variables do not take precedence: %+v", c)
	}
	// What a caller gives wins, even empty; the server is the environment's.
	c = Config{BaseURL: "http://mine/v1", Model: "mine", APIKey: ""}.WithEnv(true, true)
	if c.BaseURL != "http://first/v1" || c.Model != "mine" || c.APIKey != "" {
		t.Errorf("WithEnv(given, given): %+v", c)
	}
	c = Config{Model: "mine"}.WithEnv(false, false)
	if c.Model != "qwen" || c.APIKey != "sk-mpdf" {
		t.Errorf("WithEnv(not given, not given): %+v", c)
	}
}
