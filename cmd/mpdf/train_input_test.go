package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// assertUntouched fails unless out is missing or holds nothing.
func assertUntouched(t *testing.T, out string) {
	t.Helper()
	entries, err := os.ReadDir(out)
	if os.IsNotExist(err) {
		return
	}
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if len(names) > 0 {
		t.Errorf("a run refused for its input left %s holding %v", out, names)
	}
}

// Issue 20.7: offline train on bad input (a torn JSONL line, a pack with a
// corrupt or a missing shard) fails naming the file, leaves --out as it
// found it, and the retry once the input is fixed succeeds without
// --overwrite.
func TestTrainBadInputLeavesOutClean(t *testing.T) {
	dir := t.TempDir()
	t.Run("torn JSONL", func(t *testing.T) {
		in := episodesFile(t, dir, `{"kind":"episode","id":"torn","task":`)
		out := filepath.Join(dir, "torn")
		_, _, err := trainErr(t, out, "--iterations", "1", in)
		if err == nil || !strings.Contains(err.Error(), "episodes.jsonl") {
			t.Fatalf("torn JSONL: err = %v, want an error naming the file", err)
		}
		assertUntouched(t, out)
		episodesFile(t, dir) // the same file, whole
		train(t, out, "--iterations", "1", in)
	})

	in := episodesFile(t, dir)
	pack := filepath.Join(dir, "pack")
	mustRun(t, "data", "pack", in, "--out", pack, "--shard-rows", "100")
	shards, _ := filepath.Glob(filepath.Join(pack, "shard-*.mpdfs"))
	if len(shards) < 2 {
		t.Fatalf("pack of %d shards, want several", len(shards))
	}
	last := shards[len(shards)-1] // read last: the supervised stage would start before it
	good := readFile(t, last)

	t.Run("corrupt shard", func(t *testing.T) {
		bad := append([]byte(nil), good...)
		bad[len(bad)/2] ^= 0x40
		if err := os.WriteFile(last, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "corrupt")
		_, _, err := trainErr(t, out, "--iterations", "1", pack)
		if err == nil || !strings.Contains(err.Error(), filepath.Base(last)) {
			t.Fatalf("corrupt shard: err = %v, want an error naming it", err)
		}
		assertUntouched(t, out)
		os.WriteFile(last, good, 0o644)
		train(t, out, "--iterations", "1", pack)
	})

	t.Run("missing shard", func(t *testing.T) {
		if err := os.Rename(last, last+".away"); err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "missing")
		os.Mkdir(out, 0o755) // an --out that exists, empty: it stays so
		_, _, err := trainErr(t, out, "--iterations", "1", pack)
		if err == nil || !strings.Contains(err.Error(), filepath.Base(last)) {
			t.Fatalf("missing shard: err = %v, want an error naming it", err)
		}
		assertUntouched(t, out)
		if _, err := os.Stat(out); err != nil {
			t.Errorf("the --out that existed is gone: %v", err)
		}
		os.Rename(last+".away", last)
		train(t, out, "--iterations", "1", pack)
	})
}
