package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// poolTasks are enough tasks for every endpoint to see work.
func poolTasks(n int) []Task {
	tasks := make([]Task, n)
	for i := range tasks {
		tasks[i] = gsmTask()
		tasks[i].ID = fmt.Sprintf("t%d", i)
	}
	return tasks
}

// urls lists the servers' API roots.
func urls(servers ...*fakeServer) []string {
	var u []string
	for _, s := range servers {
		u = append(u, s.url())
	}
	return u
}

// oneEndpointRun collects tasks against one server of the fake model and
// returns the bytes written, what every run over replicas must equal, and
// the requests it sent (sent).
func oneEndpointRun(t *testing.T, tasks []Task) ([]byte, []string) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "one.jsonl")
	s := newFakeServer(t, model)
	if _, err := Collect(collectConfig(t, s, out, tasks)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b, sent(s)
}

// sent lists the requests the servers got, each its seed and messages, in
// sorted order.
func sent(servers ...*fakeServer) []string {
	var reqs []string
	for _, s := range servers {
		for _, r := range s.recorded() {
			m, _ := json.Marshal(r.Messages)
			reqs = append(reqs, fmt.Sprint(*r.Seed, " ", string(m)))
		}
	}
	sort.Strings(reqs)
	return reqs
}

// Several endpoints: each gets work, none ever has more than PerEndpoint
// requests in flight (counted by the servers), the per-endpoint counts add
// up to the client's, the requests (seeds included) are those of a
// one-endpoint run, and so are the episodes' bytes.
func TestCollectSpreadsOverEndpoints(t *testing.T) {
	tasks := poolTasks(6)
	want, wantSent := oneEndpointRun(t, tasks)
	for _, tc := range []struct{ concurrency, per, limit int }{
		{6, 1, 1}, // the limit binds: 6 workers, 3 slots
		{5, 0, 2}, // the default: ⌈5/3⌉
	} {
		servers := []*fakeServer{newFakeServer(t, model), newFakeServer(t, model), newFakeServer(t, model)}
		out := filepath.Join(t.TempDir(), "spread.jsonl")
		cfg := collectConfig(t, servers[0], out, tasks)
		cfg.Client.BaseURL, cfg.Client.BaseURLs = "", urls(servers...)
		cfg.Client.Concurrency, cfg.Client.PerEndpoint = tc.concurrency, tc.per
		var notes []string
		cfg.Progress = func(int, int) {}
		cfg.Endpoints = func(h string) { notes = append(notes, h) }
		c, err := Collect(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range servers {
			if s.hits.Load() == 0 || s.maxInflight.Load() > int64(tc.limit) {
				t.Errorf("concurrency %d, per endpoint %d: server %d got %d requests, %d at once; want some, at most %d",
					tc.concurrency, tc.per, i, s.hits.Load(), s.maxInflight.Load(), tc.limit)
			}
		}
		var attempts, prompt, completion int64
		for i, e := range c.Endpoints {
			attempts += e.Attempts
			prompt += e.PromptTokens
			completion += e.CompletionTokens
			if e.URL != servers[i].url()+"/chat/completions" || !e.Live || e.Errors != 0 || e.Attempts != servers[i].hits.Load() {
				t.Errorf("endpoint %d: %+v; want %d attempts, live, no errors", i, e, servers[i].hits.Load())
			}
		}
		if attempts != c.Stats.Attempts || prompt != c.Stats.PromptTokens || completion != c.Stats.CompletionTokens {
			t.Errorf("endpoints add up to %d attempts, %d+%d tokens; the client counted %+v", attempts, prompt, completion, c.Stats)
		}
		if len(notes) != 1 || notes[0] != "endpoints 3/3 live" {
			t.Errorf("progress notes %q, want one: all live", notes)
		}
		var text strings.Builder
		if err := c.WriteText(&text); err != nil || !strings.Contains(text.String(), "endpoints: 3 (0 attempts moved") ||
			!strings.Contains(text.String(), servers[2].url()+"/chat/completions: ") {
			t.Errorf("report:\n%s", text.String())
		}
		if got := sent(servers...); !slices.Equal(got, wantSent) {
			t.Errorf("the replicas got %d requests, other than the %d of a one-endpoint run", len(got), len(wantSent))
		}
		if b, _ := os.ReadFile(out); !bytes.Equal(b, want) {
			t.Errorf("concurrency %d, per endpoint %d: the episodes differ from a one-endpoint run", tc.concurrency, tc.per)
		}
	}
}

// killAfter makes s a replica that dies after serving n requests: it
// closes (new connections are refused) and drops the connection of any
// request that reaches it meanwhile.
func killAfter(s *fakeServer, n int64) {
	var once sync.Once
	s.script = func(w http.ResponseWriter, r *http.Request, k int, req *wireRequest) {
		if int64(k) > n {
			once.Do(func() { go s.Close() })
			if hj, ok := w.(http.Hijacker); ok {
				if conn, _, err := hj.Hijack(); err == nil {
					conn.Close()
					return
				}
			}
			http.Error(w, "dying", http.StatusBadGateway)
			return
		}
		model(w, r, k, req)
	}
}

// An endpoint killed mid-run: its share moves to the others, the run
// completes with no failed call, and the episodes are the bytes of a
// one-endpoint run.
func TestCollectSurvivesAKilledEndpoint(t *testing.T) {
	tasks := poolTasks(6)
	want, _ := oneEndpointRun(t, tasks)
	a, b, dying := newFakeServer(t, model), newFakeServer(t, model), newFakeServer(t, model)
	killAfter(dying, 5)
	out := filepath.Join(t.TempDir(), "killed.jsonl")
	cfg := collectConfig(t, a, out, tasks)
	cfg.Client.BaseURLs = urls(dying, b) // BaseURL is a's: three endpoints
	cfg.Client.Concurrency = 3
	cfg.Client.Backoff = Backoff{Initial: time.Millisecond, Max: 10 * time.Millisecond}
	c, err := Collect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := c.Endpoints[1]
	if c.Stats.Failures != 0 || c.Stats.Moved == 0 || d.Errors == 0 || d.Outs == 0 || d.Answers != 5 {
		t.Errorf("client %+v, dying endpoint %+v; want no failure, its 6th request on failed and moved", c.Stats, d)
	}
	if c.Endpoints[0].Answers+c.Endpoints[2].Answers+d.Answers != c.Stats.Requests {
		t.Errorf("answers %d+%d+%d, want the %d requests", c.Endpoints[0].Answers, c.Endpoints[2].Answers, d.Answers, c.Stats.Requests)
	}
	if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
		t.Error("the episodes differ from a one-endpoint run")
	}
}

// Every endpoint down: the collection fails naming each, and leaves no
// output behind.
func TestCollectAllEndpointsDown(t *testing.T) {
	a, b := newFakeServer(t, model), newFakeServer(t, model)
	a.Close()
	b.Close()
	out := filepath.Join(t.TempDir(), "down.jsonl")
	cfg := collectConfig(t, a, out, poolTasks(2))
	cfg.Client.BaseURLs = urls(b)
	cfg.Client.MaxRetries = new(1)
	cfg.Client.Backoff = Backoff{Initial: time.Millisecond, Max: time.Millisecond}
	_, err := Collect(cfg)
	if err == nil || !strings.Contains(err.Error(), "all 2 endpoints are failing: "+a.url()+"/chat/completions (transport error") ||
		!strings.Contains(err.Error(), "; "+b.url()+"/chat/completions (transport error") || !errors.Is(err, errTransport) {
		t.Errorf("error %v; want one naming both endpoints", err)
	}
	if _, serr := os.Lstat(out); !errors.Is(serr, fs.ErrNotExist) {
		t.Errorf("a collection that got nothing left %s: %v", out, serr)
	}
}

// A flaky endpoint (503 three times, then well) is taken out after two
// failures in a row, probed once its out period is over, and taken back:
// it serves again, and no call fails. The pool's clock moves a minute
// between calls, so an out period is over at the next call.
func TestFlakyEndpointIsTakenBack(t *testing.T) {
	good := newFakeServer(t, model)
	flaky := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		if n <= 3 {
			apiError(w, http.StatusServiceUnavailable, "loading the model")
			return
		}
		model(w, r, n, req)
	})
	c, _ := testClient(t, good, func(cfg *Config) { cfg.BaseURLs = urls(flaky); cfg.Concurrency = 1 })
	var clock atomic.Int64
	c.pool.now = func() time.Time { return time.Unix(clock.Load(), 0) }
	var sawOut bool
	for i := range 40 {
		clock.Store(int64(i) * 60)
		if _, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: fmt.Sprint("question ", i)}}}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		sawOut = sawOut || strings.Contains(c.Health(), "out: "+flaky.url())
	}
	f := c.Endpoints()[1]
	if !sawOut || f.Outs != 1 || f.Errors != 3 || !f.Live || f.Answers == 0 || f.Answers != flaky.hits.Load()-3 {
		t.Errorf("flaky endpoint %+v (seen out: %v, %d requests); want out once after 2 failures, taken back and answering",
			f, sawOut, flaky.hits.Load())
	}
	if st := c.Stats(); st.Failures != 0 || st.Moved != 3 || st.Retries != 3 {
		t.Errorf("client %+v; want its 3 failed attempts moved at once, none failed", st)
	}
	if h := c.Health(); h != "endpoints 2/2 live" {
		t.Errorf("health %q", h)
	}
}

// With one endpoint a failing server is retried as it always was: the
// backoff waits, then the error naming the URL.
func TestOneEndpointRetriesAsBefore(t *testing.T) {
	s := newFakeServer(t, func(w http.ResponseWriter, r *http.Request, n int, req *wireRequest) {
		apiError(w, http.StatusBadGateway, "down")
	})
	c, waits := testClient(t, s, func(cfg *Config) { cfg.MaxRetries = new(2) })
	_, err := c.Chat(context.Background(), Request{Messages: []Message{{Role: "user", Content: "q"}}})
	if err == nil || !strings.Contains(err.Error(), "POST "+s.url()+"/chat/completions: giving up after 3 attempts") ||
		len(*waits) != 2 || s.hits.Load() != 3 {
		t.Errorf("error %v after %d requests, waits %v; want 3 attempts, 2 waits", err, s.hits.Load(), *waits)
	}
	if e := c.Endpoints()[0]; e.Errors != 3 || e.Outs != 1 || e.Live || c.Health() != "" {
		t.Errorf("endpoint %+v, health %q", e, c.Health())
	}
}

func TestEndpointConfig(t *testing.T) {
	for _, tc := range []struct {
		cfg     Config
		want    []string
		per     int
		wantErr string
	}{
		{cfg: Config{BaseURL: "http://a/v1", BaseURLs: []string{"http://b/v1"}, Concurrency: 5},
			want: []string{"http://a/v1/chat/completions", "http://b/v1/chat/completions"}, per: 3},
		{cfg: Config{BaseURLs: []string{"http://b/v1/"}, PerEndpoint: 9}, want: []string{"http://b/v1/chat/completions"}, per: 9},
		{cfg: Config{BaseURL: "http://a/v1"}, want: []string{"http://a/v1/chat/completions"}, per: DefaultConcurrency},
		{cfg: Config{BaseURL: "http://a/v1", BaseURLs: []string{"http://a/v1/chat/completions"}}, wantErr: `"http://a/v1/chat/completions": the same server as "http://a/v1"`},
		{cfg: Config{BaseURLs: []string{"http://a/v1", "ftp://b"}}, wantErr: `base URL "ftp://b": want http://`},
		{cfg: Config{BaseURL: "http://a/v1", PerEndpoint: -1}, wantErr: "per endpoint -1: negative"},
		{cfg: Config{}, wantErr: "base URL: empty"},
	} {
		tc.cfg.Model = "m"
		eps, err := tc.cfg.withDefaults()
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%+v: error %v, want %q", tc.cfg, err, tc.wantErr)
			}
			continue
		}
		if err != nil || fmt.Sprint(eps) != fmt.Sprint(tc.want) || tc.cfg.PerEndpoint != tc.per {
			t.Errorf("endpoints %v, per endpoint %d, %v; want %v, %d", eps, tc.cfg.PerEndpoint, err, tc.want, tc.per)
		}
	}
}

func TestReadBaseURLs(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.txt", "# replicas\n\n  http://10.0.0.1:8000/v1  \n# http://10.0.0.9:8000/v1 drained\nhttp://10.0.0.2:8000/v1\n")
	if got, err := ReadBaseURLs(good); err != nil || fmt.Sprint(got) != "[http://10.0.0.1:8000/v1 http://10.0.0.2:8000/v1]" {
		t.Errorf("ReadBaseURLs = %v, %v", got, err)
	}
	for name, tc := range map[string]struct{ text, want string }{
		"bad.txt":   {"http://a/v1\n\nlocalhost:8000\n", "bad.txt:3: base URL \"localhost:8000\": want http://"},
		"dup.txt":   {"http://a/v1\nhttp://a/v1/\n", "dup.txt:2: http://a/v1/: the same server as line 1"},
		"empty.txt": {"# none yet\n", "empty.txt: no base URL in it"},
		"long.txt":  {"http://a/v1\n" + strings.Repeat("x", 5000) + "\n", "long.txt:2: line longer than 4096 bytes"},
	} {
		if _, err := ReadBaseURLs(write(name, tc.text)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", name, err, tc.want)
		}
	}
}
