package data

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// MergeShards says what is wrong in its own words, marked for its caller
// to word (the command line names its flags): no flag in the message.
func TestMergeShardsMarks(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.jsonl")
	out := filepath.Join(dir, "out.jsonl")
	for _, p := range []string{plain, out} {
		if err := os.WriteFile(p, nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := MergeShards([]string{plain}, out, MergeOptions{})
	if !errors.Is(err, ErrNoShardRecord) || !strings.Contains(err.Error(), plain+": no shard record") || strings.Contains(err.Error(), "--") {
		t.Errorf("a file without its shard record: %v, want ErrNoShardRecord in library words", err)
	}
}
