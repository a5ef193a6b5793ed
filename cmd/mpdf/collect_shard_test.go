package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"

	"github.com/mpdf/mpdf/data"
)

// newSeededServer is a loopback chat-completions server whose every
// answer depends on the request's seed (and so on the episode's random
// stream and the task's place in the tasks file): a shard playing a task
// under another stream than the unsharded run would write other bytes.
func newSeededServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model    string `json:"model"`
			Seed     int64  `json:"seed"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		content := fmt.Sprintf("The total is \\boxed{%d}.", 40+req.Seed%4)
		if strings.Contains(req.Messages[len(req.Messages)-1].Content, "How likely is it") {
			content = fmt.Sprintf("Confidence: %d", req.Seed%101)
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"id": "c1", "object": "chat.completion", "model": req.Model,
			"choices": []any{map[string]any{"index": 0, "finish_reason": "stop",
				"message": map[string]any{"role": "assistant", "content": content}}},
			"usage": map[string]any{"prompt_tokens": 50, "completion_tokens": 10 + req.Seed%7, "total_tokens": 60},
		})
	}))
	t.Cleanup(srv.Close)
	return srv
}

// shardArgs are the flags of every collection of these tests: the random
// policy (its sampling draws from the episode's stream), 2 episodes a task.
func shardArgs(srv *httptest.Server, tasks, out string, extra ...string) []string {
	return append([]string{"collect", "--base-url", srv.URL + "/v1", "--model", "m", "--tasks-file", tasks,
		"--policy", "random", "--rounds", "2", "--agents", "3", "--episodes", "2", "--concurrency", "3",
		"--retries", "0", "--timeout", "60s", "-q", "--out", out}, extra...)
}

func runBin(t *testing.T, bin string, args ...string) string {
	t.Helper()
	b, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("mpdf %s: %v\n%s", strings.Join(args, " "), err, b)
	}
	return string(b)
}

// Three shard processes, run at once, then merged, give the bytes of the
// one-process collection; a shard cut short is refused until resumed; a
// missing, repeated or foreign shard is refused, naming it.
func TestShardedCollectMergesToTheUnshardedBytes(t *testing.T) {
	bin := mpdfBinary(t)
	srv := newSeededServer(t)
	for _, ext := range []string{".jsonl", ".jsonl.gz", ".jsonl.zst"} {
		t.Run(ext, func(t *testing.T) {
			dir := t.TempDir()
			c := &shardCase{t: t, bin: bin, srv: srv, dir: dir, ext: ext,
				tasks: crashTasks(t, dir, 10), single: filepath.Join(dir, "single"+ext), merged: filepath.Join(dir, "merged"+ext)}
			runBin(t, bin, shardArgs(srv, c.tasks, c.single)...)
			c.collectShards()
			c.mergeAndRerun()
			c.refusesOtherShards()
			if ext != ".jsonl" {
				return
			}
			c.resumesAnIncompleteShard()
			c.guardsTheOutputs()
		})
	}
}

// shardCase is one output format's run of
// TestShardedCollectMergesToTheUnshardedBytes: the unsharded collection
// (single), its three shards and their merge.
type shardCase struct {
	t              *testing.T
	bin            string
	srv            *httptest.Server
	dir, ext       string
	tasks          string
	single, merged string
	shards         []string
}

// shardCount is the shards the tests collect.
const shardCount = 3

// collectShards runs the three shard processes at once and checks that
// each played its own tasks, 20 episodes in all.
func (c *shardCase) collectShards() {
	t, n := c.t, shardCount
	c.shards = make([]string, n)
	cmds := make([]*exec.Cmd, n)
	outs := make([]bytes.Buffer, n)
	for k := range n {
		c.shards[k] = filepath.Join(c.dir, fmt.Sprintf("part-%d%s", k, c.ext))
		cmds[k] = exec.Command(c.bin, shardArgs(c.srv, c.tasks, c.shards[k], "--shard", fmt.Sprintf("%d/%d", k, n))...)
		cmds[k].Stdout, cmds[k].Stderr = &outs[k], &outs[k]
		if err := cmds[k].Start(); err != nil {
			t.Fatal(err)
		}
	}
	played := 0
	for k, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("shard %d: %v\n%s", k, err, outs[k].String())
		}
		ids, _, _ := countEpisodes(c.shards[k])
		for _, id := range ids {
			if got := data.ShardOf(id, n); got != k {
				t.Errorf("shard %d played task %s, which is shard %d's", k, id, got)
			}
		}
		played += len(ids)
	}
	if played != 20 {
		t.Fatalf("the shards played %d episodes, want 10 tasks × 2", played)
	}
}

// mergeAndRerun merges the shards, given in any order, into the single
// run's bytes, and their caches into one that answers an unsharded re-run
// entirely.
func (c *shardCase) mergeAndRerun() {
	t, shards := c.t, c.shards
	joined := filepath.Join(c.dir, "joined"+c.ext+".cache")
	say := runBin(t, c.bin, "data", "merge", shards[2], shards[0], shards[1], "--out", c.merged, "--cache-out", joined)
	if !strings.Contains(say, "merged 3 shards: 20 episodes of 10 tasks") || !strings.Contains(say, "joined 3 shard caches into "+joined) {
		t.Errorf("merge said %q", say)
	}
	rerun := filepath.Join(c.dir, "rerun"+c.ext)
	say = runBin(t, c.bin, shardArgs(c.srv, c.tasks, rerun, "--cache-from", joined)...)
	if !regexp.MustCompile(`calls: [1-9]\d* requests, 0 attempts`).MatchString(say) || !strings.Contains(say, ", 0 added") {
		t.Errorf("a re-run reading the joined cache said:\n%s", say)
	}
	if a, b := mustRead(t, c.single), mustRead(t, rerun); !bytes.Equal(a, b) {
		t.Error("the re-run from the joined cache differs from the single run")
	}
	a, _ := os.ReadFile(c.single)
	b, _ := os.ReadFile(c.merged)
	if !bytes.Equal(a, b) {
		t.Fatalf("merged %d bytes differ from the single run's %d", len(b), len(a))
	}
}

// refused checks that data merge of args fails saying want, and writes no
// output.
func (c *shardCase) refused(why, want string, args ...string) {
	t := c.t
	t.Helper()
	out := filepath.Join(c.dir, "refused"+c.ext)
	b, err := exec.Command(c.bin, append(append([]string{"data", "merge"}, args...), "--out", out)...).CombinedOutput()
	if err == nil || !strings.Contains(string(b), want) {
		t.Errorf("merge of %s: %v\n%s\nwant an error saying %q", why, err, b, want)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("merge of %s wrote its output", why)
	}
}

// refusesOtherShards checks that a missing, repeated or foreign shard, one
// of another build (unless allowed), of another N, or an unsharded output
// is refused, naming it.
func (c *shardCase) refusesOtherShards() {
	t, bin, shards, ext := c.t, c.bin, c.shards, c.ext
	c.refused("a missing shard", "shard 1/3 is missing", shards[0], shards[2])
	c.refused("a repeated shard", shards[0]+" and "+shards[0]+" are both shard 0/3", shards[0], shards[1], shards[0])
	// A shard of another collection: another seed.
	foreign := filepath.Join(c.dir, "foreign"+ext)
	runBin(t, bin, shardArgs(c.srv, c.tasks, foreign, "--shard", "1/3", "--seed", "9")...)
	c.refused("a foreign shard", foreign+" is not a shard of the collection of "+shards[0]+`: seed "9", not "1"`, shards[0], foreign, shards[2])
	// A shard of another mpdf build: its record names the build.
	build := filepath.Join(c.dir, "build"+ext)
	if b, err := os.ReadFile(shards[2]); err != nil || os.WriteFile(build, b, 0o644) != nil {
		t.Fatal(err)
	}
	rec, err := data.ReadCollectShard(data.ShardRecordPath(shards[2]))
	if err != nil || !strings.HasPrefix(rec.Build, "mpdf ") || strings.Contains(rec.Build, "executable") {
		t.Fatalf("shard record without the mpdf build, or naming its executable: %v %v", err, rec)
	}
	mine := rec.Build
	rec.Build = "mpdf v9.9.9 go1.99 amd64"
	if err := data.WriteCollectShard(data.ShardRecordPath(build), rec); err != nil {
		t.Fatal(err)
	}
	c.refused("a shard of another build", fmt.Sprintf("%s was collected by %q, %s by %q: merge shards of one build, or give --allow-other-build", shards[0], mine, build, rec.Build), shards[0], shards[1], build)
	// Told to, it merges them, and the provenance says so.
	other := filepath.Join(c.dir, "otherbuild"+ext)
	runBin(t, bin, "data", "merge", shards[0], shards[1], build, "--out", other, "--allow-other-build")
	if a, b := mustRead(t, c.single), mustRead(t, other); !bytes.Equal(a, b) {
		t.Error("the merge across builds differs from the single run")
	}
	if prov := string(mustRead(t, data.MergeRecordPath(other))); !strings.Contains(prov, `"allow_other_build": true`) || !strings.Contains(prov, rec.Build) || !strings.Contains(prov, mine) {
		t.Errorf("the merged provenance does not record both builds and the override:\n%s", prov)
	}
	// Shards of another N.
	other = filepath.Join(c.dir, "other"+ext)
	runBin(t, bin, shardArgs(c.srv, c.tasks, other, "--shard", "1/4")...)
	c.refused("shards of different N", other+" is not a shard of the collection of "+shards[0]+": 4 shards, not 3", shards[0], other, shards[2])
	// An unsharded output has no record.
	c.refused("an unsharded output", c.single+": no shard record", c.single)
	c.refused("an unsharded output", "not the output of collect --shard", c.single)
}

// resumesAnIncompleteShard checks that a shard stopped early (its last
// episode lost) is refused, that resuming it as another shard or with
// other flags is refused, and that --resume completes it to the same
// bytes, which merge to the single run's.
func (c *shardCase) resumesAnIncompleteShard() {
	t, bin, shards := c.t, c.bin, c.shards
	full, _ := os.ReadFile(shards[1])
	lines := bytes.SplitAfter(bytes.TrimSuffix(full, []byte("\n")), []byte("\n"))
	os.WriteFile(shards[1], bytes.Join(lines[:len(lines)-1], nil), 0o644)
	c.refused("an incomplete shard", shards[1]+" ends before episode 1 of task", shards[0], shards[1], shards[2])
	if b, err := exec.Command(bin, shardArgs(c.srv, c.tasks, shards[1], "--shard", "2/3", "--resume")...).CombinedOutput(); err == nil ||
		!strings.Contains(string(b), "is shard 1/3, this run 2/3") {
		t.Errorf("resume as another shard: %v\n%s", err, b)
	}
	if b, err := exec.Command(bin, shardArgs(c.srv, c.tasks, shards[1], "--shard", "1/3", "--resume", "--rounds", "3")...).CombinedOutput(); err == nil ||
		!strings.Contains(string(b), `rounds "3", not "2"`) {
		t.Errorf("resume with other flags: %v\n%s", err, b)
	}
	runBin(t, bin, shardArgs(c.srv, c.tasks, shards[1], "--shard", "1/3", "--resume")...)
	if again, _ := os.ReadFile(shards[1]); !bytes.Equal(again, full) {
		t.Fatal("the resumed shard differs from the uninterrupted one")
	}
	runBin(t, bin, "data", "merge", shards[0], shards[1], shards[2], "--out", c.merged, "--overwrite")
	a, _ := os.ReadFile(c.single)
	if b, _ := os.ReadFile(c.merged); !bytes.Equal(a, b) {
		t.Fatal("the merge after the resume differs from the single run")
	}
}

// guardsTheOutputs checks that an existing merge output is refused
// without --overwrite, and an output that is one of the shards always; and
// that an unsharded collection over a shard's output drops its record,
// which no longer describes the file.
func (c *shardCase) guardsTheOutputs() {
	t, bin, shards, merged := c.t, c.bin, c.shards, c.merged
	if b, err := exec.Command(bin, "data", "merge", shards[0], shards[1], shards[2], "--out", merged).CombinedOutput(); err == nil ||
		!strings.Contains(string(b), merged+" exists: --overwrite replaces it") {
		t.Errorf("merge over an existing output: %v\n%s", err, b)
	}
	if b, err := exec.Command(bin, "data", "merge", shards[0], shards[1], shards[2], "--out", shards[1], "--overwrite").CombinedOutput(); err == nil ||
		!strings.Contains(string(b), "the output is one of the shards") {
		t.Errorf("merge into a shard: %v\n%s", err, b)
	}
	runBin(t, bin, shardArgs(c.srv, c.tasks, shards[1], "--overwrite")...)
	if _, err := os.Stat(data.ShardRecordPath(shards[1])); err == nil {
		t.Error("an unsharded collect --overwrite kept the shard record")
	}
}

// A shard killed mid-way (kill -9, a torn last record) keeps its finished
// episodes: the merge refuses it, naming it, until --resume completes it;
// then the merge equals the single-process run.
func TestShardKilledResumesThenMerges(t *testing.T) {
	bin := mpdfBinary(t)
	dir := t.TempDir()
	tasks := crashTasks(t, dir, 8)
	single := filepath.Join(dir, "single.jsonl")
	runBin(t, bin, collectArgs(newGateServer(t, -1), tasks, single)...)
	// The shard of 2 with more tasks is the one killed.
	count := [2]int{}
	for i := range 8 {
		count[data.ShardOf(fmt.Sprintf("t%d", i), 2)]++
	}
	killed := 0
	if count[1] > count[0] {
		killed = 1
	}
	if count[killed] < 3 {
		t.Fatalf("shard sizes %v: the test wants one of ≥ 3 tasks", count)
	}
	shards := []string{filepath.Join(dir, "part-0.jsonl"), filepath.Join(dir, "part-1.jsonl")}
	arg := func(k int) string { return fmt.Sprintf("%d/2", k) }
	runBin(t, bin, collectArgs(newGateServer(t, -1), tasks, shards[1-killed], "--shard", arg(1-killed))...)
	cmd := exec.Command(bin, collectArgs(newGateServer(t, 2*callsPerEpisode), tasks, shards[killed], "--shard", arg(killed))...)
	startUntil(t, cmd, data.SpoolPath(shards[killed]), 2)
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	tearTail(t, data.SpoolPath(shards[killed]))
	// Run again without --resume (and other flags): refused before its
	// record is touched, so the resume below still finds the killed run's.
	if b, err := exec.Command(bin, collectArgs(newGateServer(t, -1), tasks, shards[killed], "--shard", arg(killed), "--seed", "5")...).CombinedOutput(); err == nil ||
		!strings.Contains(string(b), "left mid-way") {
		t.Errorf("a killed shard run again without --resume: %v\n%s", err, b)
	}

	merged := filepath.Join(dir, "merged.jsonl")
	b, err := exec.Command(bin, "data", "merge", shards[0], shards[1], "--out", merged).CombinedOutput()
	if err == nil || !strings.Contains(string(b), shards[killed]) || !strings.Contains(string(b), "resume its collection first") {
		t.Errorf("merge with a killed shard: %v\n%s", err, b)
	}
	say := runBin(t, bin, collectArgs(newGateServer(t, -1), tasks, shards[killed], "--shard", arg(killed), "--resume")...)
	if !strings.Contains(say, "dropped the torn last record") || !strings.Contains(say, fmt.Sprintf("wrote %d episodes", count[killed])) {
		t.Errorf("the resumed shard said:\n%s", say)
	}
	runBin(t, bin, "data", "merge", shards[0], shards[1], "--out", merged)
	a, _ := os.ReadFile(single)
	m, _ := os.ReadFile(merged)
	if !bytes.Equal(a, m) {
		t.Fatal("the merge of a killed-then-resumed shard differs from the single run")
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Two builds of one checkout with different executables (here: one
// stripped) record the same build, so their shards merge; the build is
// named by the sources, not the executable's bytes.
func TestShardsOfTwoBuildsOfOneCheckoutMerge(t *testing.T) {
	if testing.Short() {
		t.Skip("builds mpdf twice")
	}
	dir := t.TempDir()
	bins := []string{filepath.Join(dir, "mpdf-a"), filepath.Join(dir, "mpdf-b")}
	for i, flags := range [][]string{{"-buildvcs=false"}, {"-buildvcs=false", "-ldflags=-s -w"}} {
		if b, err := exec.Command("go", append(append([]string{"build"}, flags...), "-o", bins[i], ".")...).CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, b)
		}
	}
	if a, b := mustRead(t, bins[0]), mustRead(t, bins[1]); bytes.Equal(a, b) {
		t.Fatal("the two builds are the same executable: the test shows nothing")
	}
	srv := newSeededServer(t)
	tasks := filepath.Join(dir, "tasks.jsonl")
	var b strings.Builder
	for i := range 6 {
		fmt.Fprintf(&b, `{"id":"t%d","question":"what is %d + 2?","gold":"%d","kind":"gsm"}`+"\n", i, 40+i, 42+i)
	}
	os.WriteFile(tasks, []byte(b.String()), 0o644)
	var parts []string
	for k, bin := range bins {
		part := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", k))
		runBin(t, bin, shardArgs(srv, tasks, part, "--shard", fmt.Sprintf("%d/2", k))...)
		parts = append(parts, part)
	}
	r0, _ := data.ReadCollectShard(data.ShardRecordPath(parts[0]))
	r1, _ := data.ReadCollectShard(data.ShardRecordPath(parts[1]))
	if r0 == nil || r1 == nil || r0.Build != r1.Build || !strings.Contains(r0.Build, " sources ") {
		t.Fatalf("the shards' builds: %v / %v, want one build named by its sources", r0, r1)
	}
	runBin(t, bins[0], "data", "merge", parts[0], parts[1], "--out", filepath.Join(dir, "merged.jsonl"))
}
