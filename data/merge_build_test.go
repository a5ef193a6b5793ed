package data

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeShards writes n shards of one episode per task (tasks t0..t3) whose
// records name the given builds, and returns their paths.
func writeShards(t *testing.T, dir string, builds ...string) []string {
	n := len(builds)
	var paths []string
	for k, b := range builds {
		path := filepath.Join(dir, fmt.Sprintf("part-%d.jsonl", k))
		w, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		var tasks []ShardTask
		for i := range 4 {
			id := fmt.Sprintf("t%d", i)
			if ShardOf(id, n) != k {
				continue
			}
			tasks = append(tasks, ShardTask{Index: i, ID: id})
			ep := episodeOf("1", [][]string{{"1", "2"}}, nil)
			ep.ID, ep.Task = id+"/0", id
			if err := w.WriteEpisode(ep); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		rec := NewCollectShard(k, n, 4, 1, map[string]string{"seed": "1"}, tasks)
		rec.Build = b
		if err := WriteCollectShard(ShardRecordPath(path), rec); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, path)
	}
	return paths
}

// Shards of one build merge; of two builds the merge is refused naming
// both, unless AllowOtherBuild, which the provenance record keeps.
func TestMergeShardsBuilds(t *testing.T) {
	dir := t.TempDir()
	same := writeShards(t, filepath.Join(mkdir(t, dir, "same")), "mpdf (devel) sources aa go1.26 amd64", "mpdf (devel) sources aa go1.26 amd64")
	out := filepath.Join(dir, "same.jsonl")
	if _, err := MergeShards(same, out, MergeOptions{}); err != nil {
		t.Fatalf("shards of one build: %v", err)
	}
	other := writeShards(t, filepath.Join(mkdir(t, dir, "other")), "mpdf v1.0.0 go1.26 amd64", "mpdf v1.1.0 go1.26 amd64")
	out = filepath.Join(dir, "other.jsonl")
	_, err := MergeShards(other, out, MergeOptions{})
	if !errors.Is(err, ErrOtherBuild) || !strings.Contains(err.Error(), "v1.0.0") || !strings.Contains(err.Error(), "v1.1.0") {
		t.Fatalf("shards of two builds: %v, want ErrOtherBuild naming both", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused merge wrote its output")
	}
	if _, err := MergeShards(other, out, MergeOptions{AllowOtherBuild: true}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(MergeRecordPath(out))
	if err != nil {
		t.Fatal(err)
	}
	var p MergeProvenance
	if err := json.Unmarshal(b, &p); err != nil || !p.AllowOtherBuild || len(p.Builds) != 2 || len(p.Shards) != 2 {
		t.Errorf("provenance %s (%v): want both builds and allow_other_build", b, err)
	}
}

func mkdir(t *testing.T, dir, name string) string {
	d := filepath.Join(dir, name)
	if err := os.Mkdir(d, 0o755); err != nil {
		t.Fatal(err)
	}
	return d
}
