package study

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/internal/errmark"
)

// MergeShards joins the records of a study's N shards (RunShard; each
// path a shard's directory or its ShardName file, in any order) into the
// Study CrossValidate would have returned: the same rows in the same
// order, the oracle's drawn again from each fold's baselines, so that its
// results.json, report.md and pareto.png are byte for byte the unsharded
// study's. It refuses, naming the shard: a path without a record, a shard
// given twice, a missing shard, shards of another N or of another study
// (other inputs: flags, data, build), and a shard with cells not done
// (resume it first). out, the merged study's directory, must not be one of
// the shards'.
func MergeShards(paths []string, out string) (*Study, error) {
	if len(paths) == 0 {
		return nil, errors.New("study: no shards to merge")
	}
	recs := make([]*ShardRecord, len(paths))
	byShard := map[int]int{}
	var head []byte
	for i, path := range paths {
		if sameDir(path, out) {
			return nil, fmt.Errorf("study: %s: the output is one of the shards", out)
		}
		r, err := ReadShard(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, errmark.Mark(fmt.Errorf("study: %s: no %s", path, ShardName), ErrNoShardRecord)
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
				path, r.Shard, r.Shards, n), ErrShardUnfinished)
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
	s := &Study{Config: h.Config, Env: h.Env, Rounds: h.Rounds, Tasks: h.Tasks, Folds: h.Folds, Learned: h.Learned, Fixed: h.Fixed, Notes: h.Notes}
	cells := map[int]*ShardCell{}
	for _, r := range recs {
		for i := range r.Done {
			cells[r.Done[i].Cell] = &r.Done[i]
		}
	}
	jobs, err := s.cellJobs()
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
		if c.Seed != j.seed || c.Fold != j.fold || c.Policy != policyOf(j) {
			return nil, fmt.Errorf("study: %s: cell %d is seed %d, fold %d, %s; the study plans seed %d, fold %d, %s there",
				path, c.Cell, c.Seed, c.Fold, c.Policy, j.seed, j.fold, policyOf(j))
		}
		policies := 1
		if j.base {
			policies = len(s.Fixed)
		}
		if err := checkCellTasks(c, j.test, policies); err != nil {
			return nil, fmt.Errorf("study: %s: %w", path, err)
		}
		s.Rows = append(s.Rows, c.Rows...)
		if j.base {
			s.Rows = append(s.Rows, oracle(c.Rows, s.Fixed)...)
		}
	}
	return s, nil
}

// cellJobs lists the study's cells in plan's order (seed, fold, then
// baselines and each λ) with their folds' tasks, dealt again from the
// header's tasks: what a merge needs to put the shards' rows in
// CrossValidate's order and check each cell holds its fold's rows.
func (s *Study) cellJobs() ([]job, error) {
	var jobs []job
	for k := range s.Config.Seeds {
		seed := s.Config.Seed + uint64(k)
		folds, _, err := Folds(s.Tasks, s.Config.Folds, s.Config.GroupBy, seed)
		if err != nil {
			return nil, err
		}
		for f, test := range folds {
			jobs = append(jobs, job{seed: seed, fold: f, test: test, base: true})
			for _, l := range s.Config.Lambdas {
				jobs = append(jobs, job{seed: seed, fold: f, test: test, lambda: l})
			}
		}
	}
	return jobs, nil
}

// checkCellTasks checks a cell's rows are its fold's tasks in order, once
// for each of its policies, as runJob writes them.
func checkCellTasks(c *ShardCell, test []int, policies int) error {
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
	if filepath.Base(path) == ShardName {
		path = filepath.Dir(path)
	}
	a, errA := os.Stat(path)
	b, errB := os.Stat(out)
	if errA == nil && errB == nil {
		return os.SameFile(a, b)
	}
	return filepath.Clean(path) == filepath.Clean(out)
}

// Publish writes the study's files into the held directory and prints
// its verdict lines to w (its summary as JSON with asJSON): what mpdf
// study and mpdf study merge end with.
func (d *Dir) Publish(s *Study, w io.Writer, asJSON bool) error {
	sum, err := s.Summarise()
	if err != nil {
		return err
	}
	if err := d.Write(s, sum); err != nil {
		return err
	}
	if asJSON {
		return sum.WriteJSON(w)
	}
	return sum.WriteVerdict(w)
}
