package shards

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/study"
)

// Merge says what is wrong in its own words, marked for its caller
// to word (the command line names its flags): no flag in the message.
func TestMergeMarks(t *testing.T) {
	dir := t.TempDir()
	_, err := Merge([]string{dir}, filepath.Join(t.TempDir(), "out"))
	if !errors.Is(err, ErrNoRecord) || !strings.Contains(err.Error(), "no "+study.ShardName) || strings.Contains(err.Error(), "--") {
		t.Errorf("a directory without its shard record: %v, want ErrNoRecord in library words", err)
	}
}
