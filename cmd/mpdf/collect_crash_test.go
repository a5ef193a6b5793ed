package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mpdf/mpdf/data"
)

// The crash tests run mpdf collect as a real process against a loopback
// chat-completions server that answers a given number of requests and then
// hangs, so that the process is stopped at a known point: after some
// episodes were written, with the next one waiting on the server.

// gateServer answers like chatServer, but only `open` requests (−1: all);
// later ones wait until the test ends. It counts the requests per question.
type gateServer struct {
	*httptest.Server
	mu        sync.Mutex
	open      int
	served    int
	questions map[string]int
}

func newGateServer(t *testing.T, open int) *gateServer {
	s := &gateServer{open: open, questions: map[string]int{}}
	release := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decodeChat(w, r)
		if !ok {
			return
		}
		s.mu.Lock()
		hang := s.open >= 0 && s.served >= s.open
		if !hang {
			s.served++
			for _, m := range req.Messages {
				if i := strings.Index(m.Content, "Q-"); i >= 0 {
					s.questions[m.Content[i:i+4]]++
					break
				}
			}
		}
		s.mu.Unlock()
		if hang {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		answer42(w, req.Model)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(release) }) // runs first: hung handlers return
	return s
}

// asked returns how many requests asked about question q.
func (s *gateServer) asked(q string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.questions[q]
}

// Each episode of these tests: 2 agents, round 0 and 1 round of the
// debate policy (everyone refines), no judge: 4 requests.
const callsPerEpisode = 4

// crashTasks writes n gsm tasks whose questions are, ...
func crashTasks(t *testing.T, dir string, n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, `{"id":"t%d","question":"Q-%02d: what is 40 + 2?","gold":"42","kind":"gsm"}`+"\n", i, i)
	}
	path := filepath.Join(dir, "tasks.jsonl")
	os.WriteFile(path, []byte(b.String()), 0o644)
	return path
}

func collectArgs(srv *gateServer, tasks, out string, extra ...string) []string {
	return append([]string{"collect", "--base-url", srv.URL + "/v1", "--model", "m", "--tasks-file", tasks,
		"--policy", "debate", "--rounds", "1", "--agents", "2", "--no-judge", "--concurrency", "1",
		"--retries", "0", "--timeout", "60s", "-q", "--out", out}, extra...)
}

// countEpisodes reads path leniently: the episodes whole so far and the
// rejected records (a torn end).
func countEpisodes(path string) (ids []string, c data.Counts, errs []*data.RecordError) {
	r, err := data.Open([]string{path}, data.ReaderOptions{Skip: true})
	if err != nil {
		return nil, c, nil
	}
	defer r.Close()
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		ids = append(ids, rec.Episode.Task)
	}
	return ids, r.Counts(), r.Errors()
}

// startUntil starts cmd and waits until path holds want whole episodes
// (a collection's finished episodes are in its spool, data.SpoolPath,
// until it ends).
func startUntil(t *testing.T, cmd *exec.Cmd, path string, want int) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute) // a bound on a wait, not a timing assertion
	for {
		if ids, _, _ := countEpisodes(path); len(ids) >= want {
			return
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("%s never held %d episodes", path, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill -9 mid-collection keeps every episode finished before it; a torn
// record (a kill mid-write) is dropped by --resume, which plays only the
// missing tasks; the result holds every task once. For plain and gzip
// outputs.
func TestCollectSurvivesKill9AndResumes(t *testing.T) {
	bin := mpdfBinary(t)
	for _, name := range []string{"live.jsonl", "live.jsonl.gz"} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			tasks := crashTasks(t, dir, 6)
			out := filepath.Join(dir, name)
			srv := newGateServer(t, 2*callsPerEpisode)
			cmd := exec.Command(bin, collectArgs(srv, tasks, out)...)
			spool := data.SpoolPath(out)
			startUntil(t, cmd, spool, 2)
			// A second collection into the same output is refused while
			// the first runs, naming it.
			b, err := exec.Command(bin, collectArgs(newGateServer(t, -1), tasks, out, "--resume")...).CombinedOutput()
			if err == nil || !strings.Contains(string(b), fmt.Sprintf("being written by pid %d", cmd.Process.Pid)) {
				t.Errorf("a concurrent --resume: %v\n%s", err, b)
			}
			cmd.Process.Signal(syscall.SIGKILL)
			cmd.Wait()

			ids, c, _ := countEpisodes(spool)
			if strings.Join(ids, ",") != "t0,t1" || c.Rejected != 0 {
				t.Fatalf("after kill -9: episodes %v, counts %v; want t0,t1 whole", ids, c)
			}
			// A kill in the middle of a write leaves a torn record: add one.
			tearTail(t, spool)
			if _, c, errs := countEpisodes(spool); c.Rejected != 1 || !errs[0].Torn {
				t.Fatalf("torn tail: counts %v, errors %v; want one torn record reported", c, errs)
			}

			// Without --resume the spool is not touched.
			before, _ := os.ReadFile(spool)
			srv2 := newGateServer(t, -1)
			if b, err := exec.Command(bin, collectArgs(srv2, tasks, out)...).CombinedOutput(); err == nil ||
				!strings.Contains(string(b), "left mid-way") || !strings.Contains(string(b), "--resume") {
				t.Fatalf("collect over a killed run's spool: %v\n%s", err, b)
			}
			if after, _ := os.ReadFile(spool); !bytes.Equal(before, after) {
				t.Fatal("a refused collect changed the spool")
			}

			// The killed run's lock died with it.
			b, err = exec.Command(bin, collectArgs(srv2, tasks, out, "--resume")...).CombinedOutput()
			if err != nil {
				t.Fatalf("collect --resume: %v\n%s", err, b)
			}
			if !strings.Contains(string(b), "dropped the torn last record") || !strings.Contains(string(b), "wrote 6 episodes") {
				t.Errorf("collect --resume said:\n%s", b)
			}
			ids, c, _ = countEpisodes(out)
			if strings.Join(ids, ",") != "t0,t1,t2,t3,t4,t5" || c.Rejected != 0 {
				t.Fatalf("after --resume: episodes %v, counts %v; want every task once", ids, c)
			}
			if _, err := os.Lstat(spool); err == nil {
				t.Error("the spool outlived the finished collection")
			}
			for q, want := range map[string]int{"Q-00": 0, "Q-01": 0, "Q-02": callsPerEpisode, "Q-05": callsPerEpisode} {
				if got := srv2.asked(q); got != want {
					t.Errorf("--resume asked %d requests about %s, want %d", got, q, want)
				}
			}
			// Resuming a finished collection plays nothing.
			b, err = exec.Command(bin, collectArgs(srv2, tasks, out, "--resume")...).CombinedOutput()
			if err != nil || !strings.Contains(string(b), "nothing to collect") {
				t.Errorf("resume of a finished collection: %v\n%s", err, b)
			}
			// Other flags than the first run's are refused.
			b, err = exec.Command(bin, collectArgs(srv2, tasks, out, "--resume", "--seed", "7")...).CombinedOutput()
			if err == nil || !strings.Contains(string(b), "not one of this collection's") {
				t.Errorf("resume with another seed: %v\n%s", err, b)
			}
		})
	}
}

// tearTail appends the first half of one more record, as a writer killed
// mid-write leaves it: half a line, or half a gzip member.
func tearTail(t *testing.T, path string) {
	t.Helper()
	line := []byte(`{"kind":"episode","id":"debate/s0/t2/0","task":"t2","agents":2,"rounds":[{"turns":[]}]}` + "\n")
	if strings.HasSuffix(path, ".gz") {
		var b bytes.Buffer
		zw := gzip.NewWriter(&b)
		zw.Write(line)
		zw.Close()
		line = b.Bytes()
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(line[:len(line)/2])
	f.Close()
}

// SIGTERM (what timeout, Docker, Kubernetes and Slurm send) ends a
// collection as Ctrl-C does: a .zst output keeps every finished episode,
// readable, and the process says so.
func TestCollectSIGTERMKeepsEpisodes(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	tasks := crashTasks(t, dir, 6)
	out := filepath.Join(dir, "live.jsonl.zst")
	srv := newGateServer(t, 3*callsPerEpisode)
	cmd := exec.Command(bin, collectArgs(srv, tasks, out)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	startUntil(t, cmd, data.SpoolPath(out), 3)
	cmd.Process.Signal(syscall.SIGTERM)
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() <= 0 {
		t.Errorf("after SIGTERM: %v, want a failing exit status", err)
	}
	if !strings.Contains(stderr.String(), "interrupted") || !strings.Contains(stderr.String(), "kept 3 episodes") {
		t.Errorf("stderr after SIGTERM:\n%s", stderr.String())
	}
	ids, c, _ := countEpisodes(out)
	if strings.Join(ids, ",") != "t0,t1,t2" || c.Rejected != 0 {
		t.Fatalf("after SIGTERM: episodes %v, counts %v; want t0,t1,t2 whole", ids, c)
	}
}

// A full disk (here a file-size limit, which fails write(2) with EFBIG as
// a full disk fails it with ENOSPC) stops the collection with the error;
// the output keeps every episode written before, whole, and nothing torn.
func TestCollectDiskFullKeepsEpisodes(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	tasks := crashTasks(t, dir, 6)
	// One episode's size, from a complete run.
	full := filepath.Join(dir, "full.jsonl")
	srv := newGateServer(t, -1)
	if b, err := exec.Command(bin, collectArgs(srv, tasks, full, "--limit", "1")...).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	fi, _ := os.Stat(full)
	limit := fi.Size()*5/2 + 1 // room for 2.5 episodes
	out := filepath.Join(dir, "live.jsonl")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperFileSizeLimit$")
	cmd.Env = append(os.Environ(), "MPDF_TEST_FSIZE="+strconv.FormatInt(limit, 10),
		// The size limit is per file: a cache (bbolt pages) would hit it first.
		"MPDF_TEST_EXEC="+strings.Join(append([]string{bin}, collectArgs(srv, tasks, out, "--no-cache")...), "\x1f"))
	b, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(b), "file too large") || !strings.Contains(string(b), "kept 2 episodes") {
		t.Fatalf("collect past the size limit: %v\n%s", err, b)
	}
	ids, c, _ := countEpisodes(out)
	if strings.Join(ids, ",") != "t0,t1" || c.Rejected != 0 {
		t.Fatalf("after the write failure: episodes %v, counts %v; want t0,t1 whole and nothing torn", ids, c)
	}
}

// TestHelperFileSizeLimit is not a test: run by TestCollectDiskFull, it
// sets RLIMIT_FSIZE and executes the command it is given.
func TestHelperFileSizeLimit(t *testing.T) {
	limit, args := os.Getenv("MPDF_TEST_FSIZE"), os.Getenv("MPDF_TEST_EXEC")
	if limit == "" || args == "" {
		t.Skip("helper process only")
	}
	n, _ := strconv.ParseUint(limit, 10, 64)
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		t.Fatal(err)
	}
	argv := strings.Split(args, "\x1f")
	env := []string{}
	for _, e := range os.Environ() {
		if !strings.HasPrefix(e, "MPDF_TEST_") {
			env = append(env, e)
		}
	}
	err := syscall.Exec(argv[0], argv, env)
	t.Fatal(err)
	io.WriteString(os.Stderr, "unreachable")
}

// slowServer answers every request at once but the deliberation calls
// (round ≥ 1: the request carries the agent's own answer back) about
// question slow, which wait until the test ends: one slow episode among
// fast ones, as a long-tailed model gives. It counts what it received per
// question.
func slowServer(t *testing.T, slow string) *gateServer {
	s := &gateServer{open: -1, questions: map[string]int{}}
	release := make(chan struct{})
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decodeChat(w, r)
		if !ok {
			return
		}
		q := req.question()
		s.mu.Lock()
		s.served++
		s.questions[q]++
		s.mu.Unlock()
		if q == slow && len(req.Messages) > 1 {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		answer42(w, req.Model)
	}))
	t.Cleanup(s.Close)
	t.Cleanup(func() { close(release) })
	return s
}

// A collection stopped (kill -9, SIGTERM) while its first task's episode
// hangs keeps every episode that had ended after it: with --concurrency 4
// the other episodes go on past the slow one and are committed as they end;
// --resume plays only the slow task, sending only the requests its
// response cache lacks (the slow episode's round-1 calls, not its paid
// round 0), and writes every task in task order.
func TestCollectStoppedBehindSlowEpisodeKeepsTheRest(t *testing.T) {
	bin := mpdfBinary(t)
	for _, sig := range []syscall.Signal{syscall.SIGKILL, syscall.SIGTERM} {
		t.Run(sig.String(), func(t *testing.T) {
			dir := t.TempDir()
			const n = 12
			tasks := crashTasks(t, dir, n)
			out := filepath.Join(dir, "live.jsonl.gz")
			spool := data.SpoolPath(out)
			srv := slowServer(t, "Q-00")
			cmd := exec.Command(bin, collectArgs(srv, tasks, out, "--concurrency", "4")...)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			startUntil(t, cmd, spool, n-1)
			cmd.Process.Signal(sig)
			cmd.Wait()

			kept, want := out, strings.Join(taskIDs(1, n), ",")
			if sig == syscall.SIGKILL {
				kept = spool // the killed run left its episodes in the spool, in the order they ended
			} else if !strings.Contains(stderr.String(), fmt.Sprintf("kept %d episodes", n-1)) {
				t.Errorf("stderr after SIGTERM:\n%s", stderr.String())
			}
			ids, c, _ := countEpisodes(kept)
			if sig == syscall.SIGKILL {
				slices.Sort(ids)
				w := taskIDs(1, n)
				slices.Sort(w)
				want = strings.Join(w, ",")
			}
			if strings.Join(ids, ",") != want || c.Rejected != 0 {
				t.Fatalf("after %v: %s holds %v (counts %v), want %s", sig, kept, ids, c, want)
			}

			srv2 := slowServer(t, "")
			say := runBin(t, bin, collectArgs(srv2, tasks, out, "--concurrency", "4", "--resume")...)
			if !strings.Contains(say, fmt.Sprintf("wrote %d episodes", n)) {
				t.Errorf("--resume said:\n%s", say)
			}
			// Round 0 of the slow episode (2 calls) was answered and cached
			// before the stop: only its 2 round-1 calls are sent again.
			if got := srv2.asked("Q-00"); got != 2 {
				t.Errorf("--resume sent %d requests about the slow task, want its 2 uncached ones", got)
			}
			if srv2.served != 2 {
				t.Errorf("--resume sent %d requests in all, want 2", srv2.served)
			}
			if !strings.Contains(say, "2 answers taken from it") {
				t.Errorf("--resume's report does not count the 2 cached answers:\n%s", say)
			}
			ids, c, _ = countEpisodes(out)
			if strings.Join(ids, ",") != strings.Join(taskIDs(0, n), ",") || c.Rejected != 0 {
				t.Fatalf("after --resume: %v (counts %v), want every task once in task order", ids, c)
			}
			// Byte for byte what an uninterrupted collection writes.
			single := filepath.Join(dir, "single.jsonl.gz")
			runBin(t, bin, collectArgs(slowServer(t, ""), tasks, single, "--concurrency", "4")...)
			a, _ := os.ReadFile(single)
			b, _ := os.ReadFile(out)
			if !bytes.Equal(a, b) {
				t.Error("the stopped-then-resumed output differs from the uninterrupted one")
			}
		})
	}
}

// taskIDs are t<from> ... t<to−1>.
func taskIDs(from, to int) []string {
	var ids []string
	for i := from; i < to; i++ {
		ids = append(ids, fmt.Sprintf("t%d", i))
	}
	return ids
}

// contentServer answers each request with reply(question), nil meaning
// "content": null.
func contentServer(t *testing.T, reply func(q string) *string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		req, ok := decodeChat(w, r)
		if !ok {
			return
		}
		q := req.question()
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{"model": req.Model,
			"choices": []any{map[string]any{"finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": reply(q)}}}})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A reply over --max-reply-bytes stops the collection with an error naming
// the flag, keeping the finished episodes; null content is counted and
// warned of (issue 34, causes 8 and 13).
func TestCollectReplyCapAndNullContent(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	tasks := crashTasks(t, dir, 4)
	long, ok := strings.Repeat("7", 5000), "The total is \\boxed{42}."
	srv := contentServer(t, func(q string) *string {
		if q == "Q-03" {
			return &long
		}
		return &ok
	})
	out := filepath.Join(dir, "cap.jsonl")
	args := []string{"collect", "--base-url", srv.URL + "/v1", "--model", "m", "--tasks-file", tasks, "--policy", "debate",
		"--rounds", "1", "--agents", "2", "--no-judge", "--concurrency", "1", "--retries", "0", "-q", "--max-reply-bytes", "4096", "--out", out}
	b, err := exec.Command(bin, args...).CombinedOutput()
	if err == nil || !strings.Contains(string(b), "5000 bytes") || !strings.Contains(string(b), "--max-reply-bytes") || !strings.Contains(string(b), "kept 3 episodes") {
		t.Fatalf("a reply over the cap: %v\n%s", err, b)
	}
	if ids, c, _ := countEpisodes(out); strings.Join(ids, ",") != "t0,t1,t2" || c.Rejected != 0 {
		t.Errorf("after the cap: %v %v, want t0,t1,t2", ids, c)
	}

	null := contentServer(t, func(string) *string { return nil })
	out = filepath.Join(dir, "null.jsonl")
	args[2], args[len(args)-1] = null.URL+"/v1", out
	b, err = exec.Command(bin, args...).CombinedOutput()
	if err != nil || !strings.Contains(string(b), "warning: 16 of 16 answers had null content") {
		t.Errorf("null content: %v\n%s", err, b)
	}
}

// answer42 writes the fake server's one chat completion: "The total is
// \boxed{42}.", 60 tokens.
func answer42(w http.ResponseWriter, model string) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"id": "c1", "object": "chat.completion", "model": model,
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
			"message": map[string]any{"role": "assistant", "content": "The total is \\boxed{42}."}}},
		"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 10, "total_tokens": 60},
	})
}

// chatRequest is what the fake servers read of a chat-completions request.
type chatRequest struct {
	Model    string `json:"model"`
	Messages []struct {
		Content string `json:"content"`
	} `json:"messages"`
}

// decodeChat reads r's request, answering 400 (and false) to one that
// does not decode or holds no message.
func decodeChat(w http.ResponseWriter, r *http.Request) (chatRequest, bool) {
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
		return req, false
	}
	return req, true
}

// question is the task's "Q-nn" marker in the first message, "" when it
// has none.
func (req chatRequest) question() string {
	if i := strings.Index(req.Messages[0].Content, "Q-"); i >= 0 {
		return req.Messages[0].Content[i : i+4]
	}
	return ""
}
