package shards

import (
	"bytes"
	"strings"
	"testing"
)

// The line a command prints names the record written and the counts.
func TestWrittenText(t *testing.T) {
	var b bytes.Buffer
	s := &Result{Record: &Record{Shard: 1, Shards: 4, Cells: 12}, Path: "d/shard.json", Kept: 1, Ran: 2, ShardCells: 3}
	if err := s.WriteText(&b); err != nil || !strings.HasPrefix(b.String(), "study shard 1/4: 3 of the study's 12 cells (kept 1, ran 2); wrote d/shard.json\n") {
		t.Errorf("shard: %q, %v", b.String(), err)
	}
}
