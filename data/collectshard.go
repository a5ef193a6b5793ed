package data

import (
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/internal/jsonscan"
	"github.com/mpdf/mpdf/internal/version"
	"github.com/mpdf/mpdf/outfile"
)

// A collection shard is the output of one of N collections that split a
// tasks file between them (mpdf collect --shard K/N): its episodes file
// and, beside it, a record of which shard it is and of the inputs that
// shape its episodes (CollectShard, in FILE.shard.json). MergeShards
// checks the records agree and joins the shards into what one collection
// would have written.

// ShardRule names the partition: task id → shard.
const ShardRule = "fnv1a64(task id) mod shards"

// maxShardRecordBytes bounds a shard record read back (its task list
// grows with the tasks: ~30 bytes a task).
const maxShardRecordBytes = 256 << 20

// ShardHead is the head every shard record starts with, a collection's
// (CollectShard) or a study's: its format and version, the rule that
// deals the work, and which shard of how many it is.
type ShardHead struct {
	Format        string
	Version       int
	Rule          string
	Shard, Shards int
}

// Check returns the first way h is not the head of a record of the given
// format, version and rule, or not shard K of N with 0 ≤ K < N; the error
// names the field.
func (h ShardHead) Check(format string, version int, rule string) error {
	switch {
	case h.Format != format || h.Version != version:
		return fmt.Errorf("format %q version %d: want %s version %d", h.Format, h.Version, format, version)
	case h.Rule != rule:
		return fmt.Errorf("rule %q: want %q", h.Rule, rule)
	case h.Shards < 1 || h.Shard < 0 || h.Shard >= h.Shards:
		return fmt.Errorf("shard %d/%d: want 0 ≤ shard < shards", h.Shard, h.Shards)
	}
	return nil
}

// ShardOf is the shard, of n, that plays the task whose id is id: the
// FNV-1a 64 hash of the id's bytes mod n. It depends on the id alone, not
// on the task's place in the file, so adding tasks moves no other task.
func ShardOf(id string, n int) int {
	h := fnv.New64a()
	h.Write([]byte(id))
	return int(h.Sum64() % uint64(n))
}

// ParseShard reads "K/N" (0 ≤ K < N).
func ParseShard(s string) (k, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	k, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || k < 0 || k >= n {
		return 0, 0, fmt.Errorf("shard %q: want K/N with 0 ≤ K < N, e.g. 0/4", s)
	}
	return k, n, nil
}

// ShardRecordPath is where the shard record of the episodes file path is.
func ShardRecordPath(path string) string { return path + ".shard.json" }

// CollectShard is the record of one collection shard.
type CollectShard struct {
	Format  string `json:"format"`  // "mpdf-collect-shard"
	Version int    `json:"version"` // 1
	Shard   int    `json:"shard"`   // K, 0 ≤ K < Shards
	Shards  int    `json:"shards"`  // N
	Rule    string `json:"rule"`    // ShardRule
	// TotalTasks is the number of tasks of the whole collection, Episodes
	// the episodes of each.
	TotalTasks int `json:"total_tasks"`
	Episodes   int `json:"episodes"`
	// Inputs are what shapes the episodes (hashes of the tasks and the
	// policy, seed, rounds, team, model...): every shard of a collection
	// has the same.
	Inputs map[string]string `json:"inputs"`
	// Build is the build of mpdf that collected the shard (version.Build:
	// module version and VCS revision, else the hash of its sources, and
	// the toolchain). MergeShards refuses shards of different builds unless
	// told (MergeOptions.AllowOtherBuild).
	Build string `json:"build,omitempty"`
	// Tasks are this shard's tasks, in the order they are played: the
	// order of the tasks file.
	Tasks []ShardTask `json:"tasks"`
}

// ShardTask is one task of a shard: its place in the tasks and its id.
type ShardTask struct {
	Index int    `json:"index"`
	ID    string `json:"id"`
}

const (
	shardRecordFormat  = "mpdf-collect-shard"
	shardRecordVersion = 1
)

// NewCollectShard returns the record of shard k of n, collected by this
// build (version.Build).
func NewCollectShard(k, n, totalTasks, episodes int, inputs map[string]string, tasks []ShardTask) *CollectShard {
	return &CollectShard{Format: shardRecordFormat, Version: shardRecordVersion, Shard: k, Shards: n, Rule: ShardRule,
		TotalTasks: totalTasks, Episodes: episodes, Inputs: inputs, Build: version.Build(), Tasks: tasks}
}

// WriteCollectShard writes s to path atomically.
func WriteCollectShard(path string, s *CollectShard) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	return outfile.WriteLine(path, b)
}

// ReadCollectShard reads and checks the shard record at path.
func ReadCollectShard(path string) (*CollectShard, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxShardRecordBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(b) > maxShardRecordBytes {
		return nil, fmt.Errorf("%s: over %d bytes: not a shard record", path, maxShardRecordBytes)
	}
	var s CollectShard
	if err := jsonscan.CheckStrict(b, &s); err != nil { // a key twice: which value wins?
		return nil, jsonscan.InFile(path, err)
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &s, nil
}

// check refuses a record that is not one collect writes.
func (s *CollectShard) check() error {
	if err := (ShardHead{Format: s.Format, Version: s.Version, Rule: s.Rule, Shard: s.Shard, Shards: s.Shards}).Check(shardRecordFormat, shardRecordVersion, ShardRule); err != nil {
		return err
	}
	if s.Episodes < 1 || s.TotalTasks < 0 {
		return fmt.Errorf("episodes %d, total_tasks %d: want ≥ 1 and ≥ 0", s.Episodes, s.TotalTasks)
	}
	last := -1
	for i, t := range s.Tasks {
		switch {
		case t.Index <= last || t.Index >= s.TotalTasks:
			return fmt.Errorf("tasks[%d]: index %d: want increasing, below total_tasks %d", i, t.Index, s.TotalTasks)
		case ShardOf(t.ID, s.Shards) != s.Shard:
			return fmt.Errorf("tasks[%d]: task %q belongs to shard %d/%d, not %d", i, t.ID, ShardOf(t.ID, s.Shards), s.Shards, s.Shard)
		}
		last = t.Index
	}
	return nil
}

// Same reports the first difference between s and o in what must agree
// for them to be shards of one collection (or one shard resumed): "" when
// none.
func (s *CollectShard) Same(o *CollectShard) string {
	switch {
	case s.Shards != o.Shards:
		return fmt.Sprintf("%d shards, not %d", o.Shards, s.Shards)
	case s.TotalTasks != o.TotalTasks:
		return fmt.Sprintf("%d tasks in all, not %d", o.TotalTasks, s.TotalTasks)
	case s.Episodes != o.Episodes:
		return fmt.Sprintf("%d episodes a task, not %d", o.Episodes, s.Episodes)
	}
	keys := map[string]bool{}
	for k := range s.Inputs {
		keys[k] = true
	}
	for k := range o.Inputs {
		keys[k] = true
	}
	var diff []string
	for k := range keys {
		if s.Inputs[k] != o.Inputs[k] {
			diff = append(diff, fmt.Sprintf("%s %q, not %q", k, o.Inputs[k], s.Inputs[k]))
		}
	}
	if len(diff) > 0 {
		slices.Sort(diff)
		return strings.Join(diff, "; ")
	}
	return ""
}
