package study

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// MergeShards says what is wrong in its own words, marked for its caller
// to word (the command line names its flags): no flag in the message.
func TestMergeShardsMarks(t *testing.T) {
	dir := t.TempDir()
	_, err := MergeShards([]string{dir}, filepath.Join(t.TempDir(), "out"))
	if !errors.Is(err, ErrNoShardRecord) || !strings.Contains(err.Error(), "no "+ShardName) || strings.Contains(err.Error(), "--") {
		t.Errorf("a directory without its shard record: %v, want ErrNoShardRecord in library words", err)
	}
}
