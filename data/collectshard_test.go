package data

import (
	"math"
	"strings"
	"testing"
)

// The partition is part of the file format: shards collected by one build
// are merged by another. FNV-1a 64 of "" and "a" are the published
// offset basis and test vector.
func TestShardOfIsFNV1a64ModN(t *testing.T) {
	if got := ShardOf("", 1000003); got != int(0xcbf29ce484222325%1000003) {
		t.Errorf(`ShardOf("") = %d`, got)
	}
	if got := ShardOf("a", math.MaxInt); got != int(0xaf63dc4c8601ec8c%uint64(math.MaxInt)) {
		t.Errorf(`ShardOf("a") = %d`, got)
	}
	// A task's shard depends on its id alone.
	for _, id := range []string{"gsm-0", "t7", "mmlu/17"} {
		if ShardOf(id, 5) != ShardOf(strings.Clone(id), 5) {
			t.Errorf("%s: unstable", id)
		}
	}
}

func TestParseShard(t *testing.T) {
	if k, n, err := ParseShard("2/3"); err != nil || k != 2 || n != 3 {
		t.Errorf("2/3: %d %d %v", k, n, err)
	}
	for _, bad := range []string{"3/3", "-1/3", "1", "a/3", "0/0", "1/3/4"} {
		if _, _, err := ParseShard(bad); err == nil || !strings.Contains(err.Error(), "0 ≤ K < N") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
