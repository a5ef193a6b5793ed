package shards

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"sync"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/internal/parallel"
)

// Options says which shard Run runs and how it treats its
// directory.
type Options struct {
	Shard, Shards int // K of N, 0 ≤ K < N
	// Resume keeps the cells a record in the directory holds (the same
	// shard of the same study, or it is refused) and runs the others; with
	// no record there, it starts afresh.
	Resume bool
	// Overwrite clears a directory that holds another study's files;
	// without it (or Resume) such a directory is refused.
	Overwrite bool
}

// Result is what Run did.
type Result struct {
	Record     *Record
	Path       string // the record's file
	Kept, Ran  int    // cells kept from a resumed record, cells run now
	ShardCells int    // the shard's cells (the study has Record.Cells)
}

// ErrNotEmpty is Run's error for a directory that holds other
// files than a study's, without Resume or Overwrite: where OpenDir's would
// be ErrNotEmpty, a shard can also go on (Resume).
var ErrNotEmpty = errors.New("a shard's directory is not empty")

// Run runs shard o.Shard of o.Shards of the study CrossValidate(e,
// cfg) would run: its cells (Rule), into dir's record (study.ShardName),
// rewritten atomically as each cell ends, so that a shard stopped at any
// point keeps its finished cells for o.Resume. It holds dir as a study
// does (OpenDir's lock and rules). cfg.Progress counts this run's cells.
func Run(e env.Env, cfg study.Config, dir string, o Options) (*Result, error) {
	if o.Shards < 1 || o.Shard < 0 || o.Shard >= o.Shards {
		return nil, fmt.Errorf("study: shard %d/%d: want 0 ≤ K < N", o.Shard, o.Shards)
	}
	if o.Resume && o.Overwrite {
		return nil, errors.New("study: resume keeps a shard's cells, overwrite removes them: give one")
	}
	p, err := study.NewPlan(e, cfg)
	if err != nil {
		return nil, err
	}
	s, cfg, jobs := p.Study, p.Config, p.Cells
	inputs, err := shardInputs(e, s, &cfg)
	if err != nil {
		return nil, err
	}
	d, err := study.LockDir(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	path := RecordPath(dir)
	cells := cellOrder(jobs)
	rec := &Record{Format: shardFormat, Version: shardVersion, Shard: o.Shard, Shards: o.Shards, Rule: Rule,
		Cells: len(jobs), Inputs: inputs, Study: Header{Config: cfg, Env: s.Env, Rounds: s.Rounds, Tasks: s.Tasks,
			Folds: s.Folds, Learned: s.Learned, Fixed: s.Fixed, Notes: s.Notes}, Done: []Cell{}}
	run := &Result{Record: rec, Path: path}
	if o.Resume {
		old, err := ReadRecord(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return nil, fmt.Errorf("study: resume: %w", err)
		case old.Shard != o.Shard || old.Shards != o.Shards:
			return nil, fmt.Errorf("study: resume: %s is shard %d/%d, this run %d/%d", path, old.Shard, old.Shards, o.Shard, o.Shards)
		case old.Cells != rec.Cells:
			return nil, fmt.Errorf("study: resume: %s has %d cells, this study %d: other study flags", path, old.Cells, rec.Cells)
		default:
			if diff := diffInputs(inputs, old.Inputs); diff != "" {
				return nil, fmt.Errorf("study: resume: %s is a shard of another study: %s", path, diff)
			}
			rec.Done = old.Done
			run.Kept = len(old.Done)
		}
	} else if err := d.Fresh(o.Overwrite); errors.Is(err, study.ErrNotEmpty) {
		// a shard's own remedy: not ErrNotEmpty's, whose callers word it for a study
		return nil, errmark.Mark(fmt.Errorf("study: %v", err), ErrNotEmpty)
	} else if err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	done := map[int]bool{}
	for _, c := range rec.Done {
		done[c.Cell] = true
	}
	var todo []int // indices into jobs
	for i := range jobs {
		if cells[i]%o.Shards == o.Shard {
			run.ShardCells++
			if !done[cells[i]] {
				todo = append(todo, i)
			}
		}
	}
	slices.SortFunc(todo, func(a, b int) int { return cells[a] - cells[b] })
	// The record is written before any cell runs, so that a shard with
	// nothing done yet is still seen (and refused by a merge as unfinished).
	if err := writeRecord(path, rec); err != nil {
		return nil, fmt.Errorf("study: %w", err)
	}
	var mu sync.Mutex
	err = parallel.Do(len(todo), cfg.Workers, func(k int) error {
		j := jobs[todo[k]]
		rows, err := p.Run(e, j)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		c := Cell{Cell: cells[todo[k]], Seed: j.Seed, Fold: j.Fold, Policy: policyOf(j), Rows: rows}
		at, _ := slices.BinarySearchFunc(rec.Done, c.Cell, func(a Cell, n int) int { return a.Cell - n })
		rec.Done = slices.Insert(rec.Done, at, c)
		run.Ran++
		if err := writeRecord(path, rec); err != nil {
			return fmt.Errorf("study: %w", err)
		}
		return nil
	}, cfg.Progress)
	return run, err
}

// WriteText says what the shard run did: its cells, kept and run, and
// its record's file.
func (r *Result) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "study shard %d/%d: %d of the study's %d cells (kept %d, ran %d); wrote %s\n",
		r.Record.Shard, r.Record.Shards, r.ShardCells, r.Record.Cells, r.Kept, r.Ran, r.Path)
	return err
}
