package data

import (
	"strings"
	"testing"
)

// A merge says its shards, episodes, tasks and output.
func TestMergedWriteText(t *testing.T) {
	var b strings.Builder
	if err := (Merged{Shards: 3, Tasks: 10, Episodes: 20}).WriteText(&b, "all.jsonl"); err != nil || b.String() != "merged 3 shards: 20 episodes of 10 tasks to all.jsonl\n" {
		t.Errorf("%q, %v", b.String(), err)
	}
}
