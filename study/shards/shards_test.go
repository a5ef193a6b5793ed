package shards

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/study"
	"github.com/mpdf/mpdf/study/internal/studytest"
)

// The partition deals the learned (training) cells out first, round
// robin, so that shards differ by at most one of them; every cell is in
// exactly one shard.
func TestCellOrderBalancesTraining(t *testing.T) {
	var jobs []study.Cell
	for seed := range uint64(3) {
		for f := range 5 {
			jobs = append(jobs, study.Cell{Seed: seed, Fold: f, Baselines: true})
			for _, l := range []float64{0, 0.1, 0.5} {
				jobs = append(jobs, study.Cell{Seed: seed, Fold: f, Lambda: l})
			}
		}
	}
	cells := cellOrder(jobs)
	seen := map[int]bool{}
	for _, c := range cells {
		if seen[c] || c < 0 || c >= len(jobs) {
			t.Fatalf("cell %d twice or out of range", c)
		}
		seen[c] = true
	}
	for _, n := range []int{1, 2, 4, 7, 16, 60, 61} {
		train := make([]int, n)
		for i, j := range jobs {
			if !j.Baselines {
				train[cells[i]%n]++
			}
		}
		lo, hi := train[0], train[0]
		for _, x := range train {
			lo, hi = min(lo, x), max(hi, x)
		}
		if hi-lo > 1 {
			t.Errorf("%d shards: training cells per shard %v: want within one", n, train)
		}
	}
}

// Run's shards, merged, are CrossValidate's study: the same rows and
// report bytes; a resumed shard keeps its cells; the merge refuses a shard
// with cells missing, naming it.
func TestShardsMergeToCrossValidate(t *testing.T) {
	e, err := sim.New(sim.Config{Tasks: 40, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	cfg := study.Config{Folds: 4, Seeds: 2, Lambdas: []float64{0, 1}, Episodes: 2,
		Baselines: []string{"persist", "debate", "random"}, Trainer: studytest.ConstTrainer("debate"), Workers: 2}
	whole, err := study.CrossValidate(e, cfg)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	const n = 3
	var paths []string
	for k := range n {
		p := filepath.Join(dir, fmt.Sprint("shard-", k))
		r, err := Run(e, cfg, p, Options{Shard: k, Shards: n})
		if err != nil {
			t.Fatal(err)
		}
		if r.Ran != r.ShardCells || r.Kept != 0 || r.Record.Cells != 2*4*3 {
			t.Errorf("shard %d: ran %d of %d cells, kept %d, %d in all", k, r.Ran, r.ShardCells, r.Kept, r.Record.Cells)
		}
		paths = append(paths, p)
	}
	merged, err := Merge([]string{paths[2], paths[0], paths[1]}, filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	bytesOf := func(s *study.Study) []byte {
		var b bytes.Buffer
		sum, err := s.Summarise()
		if err != nil {
			t.Fatal(err)
		}
		s.WriteResults(&b)
		sum.WriteMarkdown(&b)
		return b.Bytes()
	}
	if !bytes.Equal(bytesOf(whole), bytesOf(merged)) {
		t.Fatal("the merged shards' results and report differ from CrossValidate's")
	}
	full := checkResume(t, e, cfg, paths)
	checkMergeRefuses(t, e, cfg, paths, full)
}

// checkResume drops shard 1's last cell: the merge refuses it; a resume
// runs that one cell and gives the same record, whose bytes it returns.
func checkResume(t *testing.T, e env.Env, cfg study.Config, paths []string) (full []byte) {
	t.Helper()
	n := len(paths)
	rec := RecordPath(paths[1])
	full, _ = os.ReadFile(rec)
	r, err := ReadRecord(paths[1])
	if err != nil {
		t.Fatal(err)
	}
	r.Done = r.Done[:len(r.Done)-1]
	if err := writeRecord(rec, r); err != nil {
		t.Fatal(err)
	}
	if _, err := Merge(paths, ""); err == nil || !strings.Contains(err.Error(), paths[1]+": shard 1/3 has 1 of its cells not done") {
		t.Errorf("merge with a cell missing: %v", err)
	}
	res, err := Run(e, cfg, paths[1], Options{Shard: 1, Shards: n, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ran != 1 || res.Kept != res.ShardCells-1 {
		t.Errorf("resume ran %d, kept %d of %d", res.Ran, res.Kept, res.ShardCells)
	}
	if again, _ := os.ReadFile(rec); !bytes.Equal(again, full) {
		t.Error("the resumed record differs from the uninterrupted one")
	}
	return full
}

// checkMergeRefuses breaks the shards' records one way at a time (full is
// shard 1's record as written) and checks the merge, or the reading, refuses
// each, naming the shard.
func checkMergeRefuses(t *testing.T, e env.Env, cfg study.Config, paths []string, full []byte) {
	t.Helper()
	n := len(paths)

	// A cell that lost a row is refused by the merge, naming the shard.
	short, err := ReadRecord(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	short.Done[0].Rows = short.Done[0].Rows[1:]
	writeRecord(RecordPath(paths[0]), short)
	if _, err := Merge(paths, ""); err == nil || !strings.Contains(err.Error(), paths[0]+": cell 0 (seed 0, fold 0, mpdf λ=0): 9 rows, want 10") {
		t.Errorf("merge with a row missing: %v", err)
	}
	short.Done[0].Rows = nil
	if _, err := Run(e, cfg, paths[0], Options{Shard: 0, Shards: n, Overwrite: true}); err != nil {
		t.Fatal(err)
	}

	// A shard of another mpdf build is refused, naming it and the build.
	other, err := ReadRecord(paths[2])
	if err != nil {
		t.Fatal(err)
	}
	other.Inputs["mpdf"] = "mpdf v9.9.9 go1.99"
	writeRecord(RecordPath(paths[2]), other)
	if _, err := Merge(paths, ""); err == nil || !strings.Contains(err.Error(), paths[2]+" is not a shard of the study of "+paths[0]+": other mpdf (another mpdf build)") {
		t.Errorf("merge with a shard of another build: %v", err)
	}

	// A record whose rows point outside the tasks is refused on reading.
	rec := RecordPath(paths[1])
	var raw map[string]any
	json.Unmarshal(full, &raw)
	raw["done"].([]any)[0].(map[string]any)["rows"].([]any)[0].(map[string]any)["index"] = 4000
	b, _ := json.Marshal(raw)
	os.WriteFile(rec, b, 0o644)
	if _, err := ReadRecord(paths[1]); err == nil || !strings.Contains(err.Error(), "rows[0]: task 4000") {
		t.Errorf("a row of task 4000 of 40: %v", err)
	}
	// So is one of another policy than its cell's.
	json.Unmarshal(full, &raw)
	raw["done"].([]any)[0].(map[string]any)["rows"].([]any)[0].(map[string]any)["policy"] = "gate"
	b, _ = json.Marshal(raw)
	os.WriteFile(rec, b, 0o644)
	if _, err := ReadRecord(paths[1]); err == nil || !strings.Contains(err.Error(), `rows[0]: policy "gate" in a cell of`) {
		t.Errorf("a row of another policy: %v", err)
	}
}
