package llm

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/errmark"
)

// A collection reads its tasks file, keeps the first Limit tasks, gives 0
// episodes and rounds their defaults, and refuses a setting out of range
// by its key.
func TestCollectResolve(t *testing.T) {
	file := filepath.Join(t.TempDir(), "t.jsonl")
	lines := `{"id":"a","question":"1+1?","gold":"2","kind":"arithmetic"}` + "\n" + `{"id":"b","question":"2+2?","gold":"4","kind":"arithmetic"}` + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := CollectConfig{TasksFile: file, Limit: 1}
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	if len(cfg.Tasks) != 1 || cfg.Tasks[0].ID != "a" || cfg.Episodes != 1 || cfg.Rounds != env.DefaultRounds {
		t.Errorf("tasks %v, episodes %d, rounds %d", cfg.Tasks, cfg.Episodes, cfg.Rounds)
	}
	for _, c := range []struct {
		cfg       CollectConfig
		key, want string
	}{
		{CollectConfig{TasksFile: file, Limit: 3}, "limit", "llm: collect: limit 3: " + file + " has 2 tasks"},
		{CollectConfig{TasksFile: file, Limit: -1}, "limit", "llm: collect: limit -1: want ≥ 0 (0: all)"},
		{CollectConfig{TasksFile: file, Rounds: -2}, "rounds", "llm: collect: rounds -2: want ≥ 0 (0: 3)"},
	} {
		err := c.cfg.resolve()
		var s *errmark.Setting
		if !errors.As(err, &s) || s.Key != c.key || err.Error() != c.want {
			t.Errorf("%+v: %v, want a setting %s: %q", c.cfg, err, c.key, c.want)
		}
	}
}

// A collection's client without a backoff gets CollectJitter drawn from
// the collection's seed; one that sets its backoff keeps it.
func TestCollectResolveBackoff(t *testing.T) {
	cfg := CollectConfig{Tasks: []Task{}, Seed: 9}
	if err := cfg.resolve(); err != nil {
		t.Fatal(err)
	}
	if want := (Backoff{Jitter: CollectJitter, Seed: 9}); cfg.Client.Backoff != want {
		t.Errorf("zero backoff: %+v, want %+v", cfg.Client.Backoff, want)
	}
	own := Backoff{Initial: time.Second}
	cfg = CollectConfig{Tasks: []Task{}, Seed: 9, Client: Config{Backoff: own}}
	if err := cfg.resolve(); err != nil || cfg.Client.Backoff != own {
		t.Errorf("own backoff: %+v, %v; want it kept", cfg.Client.Backoff, err)
	}
}
