package llm

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
)

func collectConfig(t *testing.T, s *fakeServer, out string, tasks []Task) CollectConfig {
	t.Helper()
	pol, err := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	if err != nil {
		t.Fatal(err)
	}
	return CollectConfig{
		Client:  Config{BaseURL: s.url(), Model: "test-model", Timeout: 2 * time.Second, Concurrency: 2},
		Options: Options{Personas: personas},
		Tasks:   tasks, Episodes: 2, Rounds: 1, Policy: pol, Out: out,
	}
}

func episodeIDs(t *testing.T, path string) []string {
	t.Helper()
	r, err := data.Open([]string{path}, data.ReaderOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var ids []string
	for {
		rec, err := r.Next()
		if err != nil {
			break
		}
		ids = append(ids, rec.Episode.ID)
	}
	return ids
}

// Collect writes every episode; a second run on the same Out is refused,
// resumes as nothing to do with Resume, refuses another seed's resume, and
// a cancelled run leaves a new Out absent.
func TestCollectAndResume(t *testing.T) {
	s := newFakeServer(t, model)
	out := filepath.Join(t.TempDir(), "live.jsonl")
	t2 := gsmTask()
	t2.ID = "t2"
	cfg := collectConfig(t, s, out, []Task{gsmTask(), t2})
	var last, total int
	cfg.Progress = func(done, tot int) { last, total = done, tot }
	c, err := Collect(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if c.Written != 4 || c.Kept != 0 || c.Result.Episodes != 4 || c.Model != "test-model" || last != 4 || total != 4 {
		t.Errorf("collection %+v, progress %d/%d; want 4 episodes written", c, last, total)
	}
	var text strings.Builder
	if err := c.WriteText(&text); err != nil || !strings.Contains(text.String(), "wrote 4 episodes (2 tasks × 2 episodes, 1 rounds, policy debate, model test-model) to "+out) {
		t.Errorf("text %q, %v", text.String(), err)
	}
	if b, err := json.Marshal(c); err != nil || !strings.Contains(string(b), `"out":"`+out+`","episodes":4,"model":"test-model","client":{`) {
		t.Errorf("JSON %s, %v", b, err)
	}
	if ids := episodeIDs(t, out); len(ids) != 4 {
		t.Errorf("out holds %v", ids)
	}
	if _, err := Collect(cfg); err == nil || !strings.Contains(err.Error(), "exists") {
		t.Errorf("a second collection into out: %v, want refused", err)
	}
	cfg.Resume = true
	c, err = Collect(cfg)
	if err != nil || c.Written != 0 || c.Kept != 4 || c.Result.Episodes != 4 {
		t.Errorf("resume of a full out: %+v, %v; want nothing written, 4 kept", c, err)
	}
	text.Reset()
	if c.WriteText(&text); text.String() != "nothing to collect: "+out+" holds all 4 episodes\n" {
		t.Errorf("text of a full resume %q", text.String())
	}
	cfg.Seed = 7
	if _, err := Collect(cfg); err == nil || !strings.Contains(err.Error(), "is not one of this collection's") {
		t.Errorf("resume with another seed: %v, want refused", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	fresh := filepath.Join(t.TempDir(), "new.jsonl")
	cfg = collectConfig(t, s, fresh, []Task{gsmTask()})
	cfg.Options.Context, cfg.Hint = ctx, "resume it"
	if _, err := Collect(cfg); err == nil || err.Error() != "interrupted" {
		t.Errorf("a cancelled collection: %v, want interrupted", err)
	}
	if _, err := os.Lstat(fresh); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a cancelled collection left its out: %v", err)
	}
}

// Collect refuses an Out or a Cache that is one of its inputs (the tasks
// file, a read-only cache, Out for the cache), before it touches either:
// the input keeps its bytes.
func TestCollectRefusesOutputOverInput(t *testing.T) {
	s := newFakeServer(t, model)
	dir := t.TempDir()
	tasks := filepath.Join(dir, "tasks.jsonl")
	body := []byte(`{"id":"t1","question":"What is 6*7?","gold":"42","kind":"gsm8k"}` + "\n")
	if err := os.WriteFile(tasks, body, 0o644); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.cache")
	for _, c := range []struct {
		name       string
		out, cache string
		from       []string
	}{
		{"out is the tasks file", tasks, "", nil},
		{"out is the cache", filepath.Join(dir, "x.jsonl"), filepath.Join(dir, "x.jsonl"), nil},
		{"cache is the tasks file", filepath.Join(dir, "y.jsonl"), tasks, nil},
		{"cache is a read-only cache", filepath.Join(dir, "z.jsonl"), other, []string{other}},
	} {
		cfg := collectConfig(t, s, c.out, nil)
		cfg.TasksFile, cfg.Cache, cfg.CacheFrom = tasks, c.cache, c.from
		if _, err := Collect(cfg); !errors.Is(err, outfile.ErrOutputIsInput) {
			t.Errorf("%s: %v, want ErrOutputIsInput", c.name, err)
		}
		if got, err := os.ReadFile(tasks); err != nil || string(got) != string(body) {
			t.Errorf("%s: the tasks file now holds %q, %v", c.name, got, err)
		}
	}
	if n := len(s.recorded()); n != 0 {
		t.Errorf("%d calls paid for refused collections", n)
	}
}
