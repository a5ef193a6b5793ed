package shards

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/study"
)

// The refusals of Merge that its caller words in its own terms.
var (
	// ErrNoRecord: a directory has no shard record (study.ShardName),
	// so it is not a shard's output.
	ErrNoRecord = errors.New("no shard record")
	// ErrUnfinished: a shard stopped before all its cells were done.
	ErrUnfinished = errors.New("shard not finished")
)

// Merge joins the records of a study's N shards (Run; each
// path a shard's directory or its study.ShardName file, in any order) into the
// Study CrossValidate would have returned: the same rows in the same
// order, the oracle's drawn again from each fold's baselines, so that its
// results.json, report.md and pareto.png are byte for byte the unsharded
// study's. It refuses, naming the shard: a path without a record, a shard
// given twice, a missing shard, shards of another N or of another study
// (other inputs: flags, data, build), and a shard with cells not done
// (resume it first). out, the merged study's directory, must not be one of
// the shards'.
func Merge(paths []string, out string) (*study.Study, error) {
	if len(paths) == 0 {
		return nil, errors.New("study: no shards to merge")
	}
	recs := make([]*Record, len(paths))
	byShard := map[int]int{}
	var head []byte
	for i, path := range paths {
		if sameDir(path, out) {
			return nil, fmt.Errorf("study: %s: the output is one of the shards", out)
		}
		r, err := ReadRecord(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errmark.Mark(fmt.Errorf("study: %s: no %s", path, study.ShardName), ErrNoRecord)
		}
		if err != nil {
			return nil, fmt.Errorf("study: %w", err)
		}
		h, err := json.Marshal(&r.Study)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			head = h
		} else {
			var why string
			switch f := recs[0]; {
			case r.Shards != f.Shards:
				why = fmt.Sprintf("%d shards, not %d", r.Shards, f.Shards)
			case r.Cells != f.Cells:
				why = fmt.Sprintf("%d cells, not %d", r.Cells, f.Cells)
			default:
				why = diffInputs(f.Inputs, r.Inputs)
				if why == "" && !bytes.Equal(h, head) {
					why = "another study header"
				}
			}
			if why != "" {
				return nil, fmt.Errorf("study: %s is not a shard of the study of %s: %s", path, paths[0], why)
			}
		}
		if j, dup := byShard[r.Shard]; dup {
			return nil, fmt.Errorf("study: %s and %s are both shard %d/%d", paths[j], path, r.Shard, r.Shards)
		}
		if n := r.todo(); n > 0 {
			return nil, errmark.Mark(fmt.Errorf("study: %s: shard %d/%d has %d of its cells not done (stopped early): resume it first",
				path, r.Shard, r.Shards, n), ErrUnfinished)
		}
		byShard[r.Shard] = i
		recs[i] = r
	}
	n := recs[0].Shards
	for k := range n {
		if _, ok := byShard[k]; !ok {
			return nil, fmt.Errorf("study: shard %d/%d is missing (given: %d of %d shards)", k, n, len(paths), n)
		}
	}
	h := &recs[0].Study
	s := &study.Study{Config: h.Config, Env: h.Env, Rounds: h.Rounds, Tasks: h.Tasks, Folds: h.Folds, Learned: h.Learned, Fixed: h.Fixed, Notes: h.Notes}
	cells := map[int]*Cell{}
	for _, r := range recs {
		for i := range r.Done {
			cells[r.Done[i].Cell] = &r.Done[i]
		}
	}
	jobs, err := s.Cells()
	if err != nil {
		return nil, fmt.Errorf("study: %s: %w", paths[0], err)
	}
	if len(jobs) != recs[0].Cells {
		return nil, fmt.Errorf("study: %s: %d cells, but its header plans %d", paths[0], recs[0].Cells, len(jobs))
	}
	order := cellOrder(jobs)
	for i, j := range jobs {
		c := cells[order[i]]
		path := paths[byShard[order[i]%n]]
		if c.Seed != j.Seed || c.Fold != j.Fold || c.Policy != policyOf(j) {
			return nil, fmt.Errorf("study: %s: cell %d is seed %d, fold %d, %s; the study plans seed %d, fold %d, %s there",
				path, c.Cell, c.Seed, c.Fold, c.Policy, j.Seed, j.Fold, policyOf(j))
		}
		policies := 1
		if j.Baselines {
			policies = len(s.Fixed)
		}
		if err := checkCellTasks(c, j.Test, policies); err != nil {
			return nil, fmt.Errorf("study: %s: %w", path, err)
		}
		s.Rows = append(s.Rows, c.Rows...)
		if j.Baselines {
			s.Rows = append(s.Rows, study.Oracle(c.Rows, s.Fixed)...)
		}
	}
	return s, nil
}

// checkCellTasks checks a cell's rows are its fold's tasks in order, once
// for each of its policies, as study.Plan.Run writes them.
func checkCellTasks(c *Cell, test []int, policies int) error {
	if len(c.Rows) != len(test)*policies {
		return fmt.Errorf("cell %d (seed %d, fold %d, %s): %d rows, want %d: the fold's %d tasks × %d policies",
			c.Cell, c.Seed, c.Fold, c.Policy, len(c.Rows), len(test)*policies, len(test), policies)
	}
	for k, r := range c.Rows {
		if r.Index != test[k%len(test)] {
			return fmt.Errorf("cell %d (seed %d, fold %d, %s): rows[%d] is task %d, the fold's task there is %d", c.Cell, c.Seed, c.Fold, c.Policy, k, r.Index, test[k%len(test)])
		}
	}
	return nil
}

// sameDir reports whether a shard path (a directory or its record) is the
// directory out.
func sameDir(path, out string) bool {
	if out == "" {
		return false
	}
	if filepath.Base(path) == study.ShardName {
		path = filepath.Dir(path)
	}
	a, errA := os.Stat(path)
	b, errB := os.Stat(out)
	if errA == nil && errB == nil {
		return os.SameFile(a, b)
	}
	return filepath.Clean(path) == filepath.Clean(out)
}
