package data

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"

	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/outfile"
)

// MergeOptions configures MergeShards.
type MergeOptions struct {
	Overwrite    bool // replace an existing output (else it is refused)
	MaxLineBytes int  // longest record line read or written; 0 = the default
	// AllowOtherBuild merges shards collected by different builds of mpdf
	// (refused otherwise: ErrOtherBuild); the provenance record says so.
	AllowOtherBuild bool
}

// MergeProvenance is the record MergeShards writes beside its output
// (MergeRecordPath): the shards merged, each with its build, and whether
// shards of different builds were allowed.
type MergeProvenance struct {
	Format          string        `json:"format"` // "mpdf-collect-merge"
	Version         int           `json:"version"`
	Shards          []MergedShard `json:"shards"`
	Builds          []string      `json:"builds"` // the distinct builds, in shard order
	AllowOtherBuild bool          `json:"allow_other_build"`
}

// MergedShard is one shard of a merge.
type MergedShard struct {
	Path  string `json:"path"`
	Shard int    `json:"shard"`
	Build string `json:"build"`
}

// MergeRecordPath is where MergeShards records the provenance of out.
func MergeRecordPath(out string) string { return out + ".merge.json" }

// Merged is what MergeShards wrote.
type Merged struct {
	Shards, Tasks int
	Episodes      int64
}

// WriteText says what MergeShards wrote to out.
func (m Merged) WriteText(w io.Writer, out string) error {
	_, err := fmt.Fprintf(w, "merged %d shards: %d episodes of %d tasks to %s\n", m.Shards, m.Episodes, m.Tasks, out)
	return err
}

// MergeShards joins the collection shards files (episodes files, each with
// its record beside it, ShardRecordPath) into out, in the order one
// collection of every task writes them: the tasks file's order, then the
// episode index, each episode its own compressed member as collect commits
// it. So out is byte for byte the unsharded collection's output (one
// uninterrupted: a resumed compressed output packs its kept episodes into
// one member). It refuses, naming the file: a shard without its record, a
// shard given twice, shards of different counts or inputs, a missing
// shard, and a shard that does not hold exactly its tasks' episodes (one
// stopped early: resume it first). Nothing is written on an error.
func MergeShards(shards []string, out string, opts MergeOptions) (Merged, error) {
	var m Merged
	if len(shards) == 0 {
		return m, errors.New("no shards to merge")
	}
	recs, byIndex, err := readShardRecords(shards, out)
	if err != nil {
		return m, err
	}
	prov, err := mergeProvenance(shards, recs, opts)
	if err != nil {
		return m, err
	}
	n := recs[0].Shards
	for k := range n {
		if _, ok := byIndex[k]; !ok {
			return m, fmt.Errorf("shard %d/%d is missing (given: %d of %d shards)", k, n, len(shards), n)
		}
	}
	owner, ids, err := taskOwners(shards, recs)
	if err != nil {
		return m, err
	}
	if !opts.Overwrite {
		if _, err := os.Lstat(out); err == nil {
			return m, errmark.Mark(fmt.Errorf("%s exists", out), ErrExists)
		}
	}
	if m.Episodes, err = writeMerged(shards, recs, owner, ids, out, opts); err != nil {
		return m, err
	}
	b, err := json.MarshalIndent(prov, "", "  ")
	if err == nil {
		err = outfile.WriteLine(MergeRecordPath(out), b)
	}
	if err != nil {
		return m, fmt.Errorf("%s is merged, its provenance not: %w", out, err)
	}
	m.Shards, m.Tasks = n, len(owner)
	return m, nil
}

// readShardRecords reads the record beside each shard, refusing the
// output among the shards, a shard without its record or left mid-way,
// one of another collection and a shard given twice; byIndex maps a
// shard's index to its place in shards.
func readShardRecords(shards []string, out string) (recs []*CollectShard, byIndex map[int]int, err error) {
	recs = make([]*CollectShard, len(shards))
	byIndex = map[int]int{}
	for i, path := range shards {
		if outfile.NotAnInput(out, path) != nil {
			return nil, nil, fmt.Errorf("%s: the output is one of the shards", out)
		}
		r, err := ReadCollectShard(ShardRecordPath(path))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, errmark.Mark(fmt.Errorf("%s: no shard record %s beside it", path, ShardRecordPath(path)), ErrNoShardRecord)
		}
		if err != nil {
			return nil, nil, err
		}
		if _, err := os.Lstat(SpoolPath(path)); err == nil {
			return nil, nil, fmt.Errorf("%s was left mid-way: its finished episodes wait in %s, out of order (resume its collection first: it puts them in order and plays the missing ones)", path, SpoolPath(path))
		}
		if i > 0 {
			if d := recs[0].Same(r); d != "" {
				return nil, nil, fmt.Errorf("%s is not a shard of the collection of %s: %s", path, shards[0], d)
			}
		}
		if j, dup := byIndex[r.Shard]; dup {
			return nil, nil, fmt.Errorf("%s and %s are both shard %d/%d", shards[j], path, r.Shard, r.Shards)
		}
		byIndex[r.Shard] = i
		recs[i] = r
	}
	return recs, byIndex, nil
}

// mergeProvenance is the merge's record: each shard and its build, and
// the builds; shards of another build than the first are refused unless
// opts allow them.
func mergeProvenance(shards []string, recs []*CollectShard, opts MergeOptions) (MergeProvenance, error) {
	prov := MergeProvenance{Format: "mpdf-collect-merge", Version: 1, AllowOtherBuild: opts.AllowOtherBuild}
	for i, r := range recs {
		prov.Shards = append(prov.Shards, MergedShard{Path: shards[i], Shard: r.Shard, Build: r.Build})
		if !slices.Contains(prov.Builds, r.Build) {
			prov.Builds = append(prov.Builds, r.Build)
		}
		if r.Build != recs[0].Build && !opts.AllowOtherBuild {
			return prov, errmark.Mark(fmt.Errorf("%s was collected by %q, %s by %q", shards[0], recs[0].Build, shards[i], r.Build), ErrOtherBuild)
		}
	}
	return prov, nil
}

// taskOwners are, for each task t of the collection, the shard holding it
// (owner[t], a place in shards) and its id; every task in exactly one.
func taskOwners(shards []string, recs []*CollectShard) (owner []int32, ids []string, err error) {
	total := recs[0].TotalTasks
	owner = make([]int32, total)
	ids = make([]string, total)
	for i := range owner {
		owner[i] = -1
	}
	for i, r := range recs {
		for _, t := range r.Tasks {
			if owner[t.Index] >= 0 {
				return nil, nil, fmt.Errorf("%s and %s both hold task %d", shards[owner[t.Index]], shards[i], t.Index)
			}
			owner[t.Index], ids[t.Index] = int32(i), t.ID
		}
	}
	for t, o := range owner {
		if o < 0 {
			return nil, nil, fmt.Errorf("no shard holds task %d of %d", t, total)
		}
	}
	return owner, ids, nil
}

// writeMerged writes out from the shards, task by task in the tasks
// file's order, each episode its own compressed member, and returns the
// episodes written; a shard that does not hold exactly its tasks'
// episodes is refused and out is left as it was.
func writeMerged(shards []string, recs []*CollectShard, owner []int32, ids []string, out string, opts MergeOptions) (int64, error) {
	readers := make([]*Reader, len(shards))
	defer func() {
		for _, r := range readers {
			if r != nil {
				r.Close()
			}
		}
	}()
	ropts := ReaderOptions{MaxLineBytes: opts.MaxLineBytes, KeepErrors: -1}
	for i, path := range shards {
		r, err := Open([]string{path}, ropts)
		if err != nil {
			return 0, err
		}
		readers[i] = r
	}
	w, err := Create(out)
	if err != nil {
		return 0, err
	}
	w.SetMaxLineBytes(opts.MaxLineBytes)
	eps := recs[0].Episodes
	seen := map[string]bool{}
	var written int64
	for t := range owner {
		i := owner[t]
		clear(seen)
		for e := range eps {
			ep, err := nextEpisode(readers[i], shards[i], ids[t], e, eps)
			if err == nil && seen[ep.ID] {
				err = fmt.Errorf("%s: episode %q appears twice", shards[i], ep.ID)
			}
			if err == nil {
				err = w.WriteEpisode(ep)
			}
			if err == nil {
				err = w.endMember() // one member an episode, as collect commits them
			}
			if err != nil {
				w.Abort()
				return written, err
			}
			seen[ep.ID] = true
			written++
		}
	}
	for i, r := range readers {
		if _, err := r.Next(); err != io.EOF {
			w.Abort()
			if err == nil {
				return written, fmt.Errorf("%s holds more episodes than its %d tasks × %d: not what a shard's collection writes", shards[i], len(recs[i].Tasks), eps)
			}
			return written, fmt.Errorf("%s: %w", shards[i], err)
		}
	}
	return written, w.Close()
}

// nextEpisode reads the next record of a shard, which must be episode e
// of the task whose id is task.
func nextEpisode(r *Reader, path, task string, e, eps int) (*Episode, error) {
	rec, err := r.Next()
	if err == io.EOF {
		return nil, fmt.Errorf("%s ends before episode %d of task %q: the shard is incomplete (resume its collection first)", path, e, task)
	}
	var re *RecordError
	if errors.As(err, &re) && re.Torn {
		return nil, fmt.Errorf("%s: %w: the shard is incomplete (resume its collection first)", path, err)
	}
	if err != nil {
		return nil, err
	}
	if rec.Episode == nil {
		return nil, fmt.Errorf("%s: a decision record: not a collection's output", rec.Pos)
	}
	if rec.Episode.Task != task {
		return nil, fmt.Errorf("%s: task %q, want episode %d of %d of task %q: the shard is incomplete, or its record and episodes disagree (resume its collection first)", rec.Pos, rec.Episode.Task, e, eps, task)
	}
	return rec.Episode, nil
}
