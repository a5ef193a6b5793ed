package shards

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/replay"
	"github.com/mpdf/mpdf/internal/jsonscan"
	"github.com/mpdf/mpdf/internal/version"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/study"
)

// Rule names the partition of the cells. The cells are numbered
// learned ones first — seed by seed, fold by fold, λ in the order given —
// then the baselines cells, seed by seed and fold by fold; cell i belongs
// to shard i mod N. Training cells, the costly ones, are so dealt out
// evenly (they differ by at most one between shards), the cheap baselines
// cells after them.
const Rule = "cell i mod shards; cells: learned (seed, fold, λ), then baselines (seed, fold)"

const (
	shardFormat  = "mpdf-study-shard"
	shardVersion = 1
	// maxShardBytes bounds a shard record read back: its rows grow with
	// tasks × policies × seeds (~200 bytes a row).
	maxShardBytes = 1 << 30
)

// Record is what a study shard writes (study.ShardName): which shard it is,
// the inputs that shape the study's rows, the study's header, and the
// cells done so far, each with its rows.
type Record struct {
	Format  string `json:"format"`  // "mpdf-study-shard"
	Version int    `json:"version"` // 1
	Shard   int    `json:"shard"`   // K, 0 ≤ K < Shards
	Shards  int    `json:"shards"`  // N
	Rule    string `json:"rule"`    // Rule
	Cells   int    `json:"cells"`   // cells of the whole study
	// Inputs hash what shapes the rows (Inputs): every shard of a
	// study has the same.
	Inputs map[string]string `json:"inputs"`
	// Study is the header every shard shares: what the merged Study
	// holds besides its rows.
	Study Header `json:"study"`
	// Done are the finished cells, by cell number.
	Done []Cell `json:"done"`
}

// Header is a Study without its rows.
type Header struct {
	Config  study.Config     `json:"config"`
	Env     string           `json:"env"`
	Rounds  int              `json:"rounds"`
	Tasks   []study.TaskInfo `json:"tasks"`
	Folds   []string         `json:"folds"`
	Learned []string         `json:"learned"`
	Fixed   []string         `json:"baselines"`
	Notes   []string         `json:"notes,omitempty"` // Study.Notes
}

// Cell is one finished cell and its rows (the oracle's rows of a
// baselines cell are not stored: the merge draws them again).
type Cell struct {
	Cell   int               `json:"cell"`
	Seed   uint64            `json:"seed"`
	Fold   int               `json:"fold"`
	Policy string            `json:"policy"` // a learned policy's name, or "baselines"
	Rows   []study.ResultRow `json:"rows"`
}

// baselinesCell is Cell.Policy of a fold's baselines.
const baselinesCell = "baselines"

// cellOrder returns each cell's number (Rule), the cells listed in
// study.NewPlan's order: per seed and fold, the baselines then the
// learned ones.
func cellOrder(jobs []study.Cell) []int {
	cell := make([]int, len(jobs))
	n := 0
	for i, j := range jobs {
		if !j.Baselines {
			cell[i] = n
			n++
		}
	}
	for i, j := range jobs {
		if j.Baselines {
			cell[i] = n
			n++
		}
	}
	return cell
}

// policyOf is the Cell.Policy of a cell.
func policyOf(j study.Cell) string {
	if j.Baselines {
		return baselinesCell
	}
	return study.LearnedName(j.Lambda)
}

// Inputs returns what shapes a study's rows, for a shard's record:
// the mpdf build ("mpdf", named: module version, VCS revision and Go
// version, or the executable's SHA-256, as version.Build says), the
// training function ("trainer", named), and SHA-256 hashes (hex) of the
// resolved configuration ("config": every setting of Config), the
// environment's name ("env": for a replay its files' base names), the
// tasks ("tasks": every task's question unit, model and file), a replay's
// transcripts as read ("data": every question and answer; "" for another
// Env) and the episodes the first baseline plays, one per task ("play",
// which catches any other setting of the environment: the simulator's, the
// critic, the task kind).
func Inputs(e env.Env, cfg study.Config) (map[string]string, error) {
	p, err := study.NewPlan(e, cfg)
	if err != nil {
		return nil, err
	}
	return shardInputs(e, p.Study, &p.Config)
}

func shardInputs(e env.Env, s *study.Study, cfg *study.Config) (map[string]string, error) {
	in := map[string]string{"mpdf": version.Build(), "trainer": funcName(cfg.Trainer)}
	var err error
	if in["config"], err = hashJSON(cfg); err != nil {
		return nil, err
	}
	in["env"] = hashString(s.Env)
	if in["tasks"], err = hashJSON(s.Tasks); err != nil {
		return nil, err
	}
	if in["data"], err = hashData(e); err != nil {
		return nil, err
	}
	if in["play"], err = hashPlay(e, s, cfg); err != nil {
		return nil, err
	}
	return in, nil
}

func funcName(f study.Trainer) string {
	if f == nil {
		return ""
	}
	return runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
}

func hashString(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

func hashJSON(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("study: shard inputs: %w", err)
	}
	return hashString(string(b)), nil
}

// hashData hashes a replay's transcripts as read (every question: its
// text, gold and every agent's answers, as JSON), so that shards on nodes
// that mount the files at other paths agree; "" for another Env.
func hashData(e env.Env) (string, error) {
	r, ok := e.(*replay.Env)
	if !ok {
		return "", nil
	}
	h := sha256.New()
	enc := json.NewEncoder(h)
	for i := range r.NumTasks() {
		if err := enc.Encode(r.Question(i)); err != nil {
			return "", fmt.Errorf("study: shard inputs: %w", err)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// hashPlay hashes one episode per task of the first baseline.
func hashPlay(e env.Env, s *study.Study, cfg *study.Config) (string, error) {
	if len(cfg.Baselines) == 0 {
		return "", nil
	}
	p, err := metapolicy.ParseHeuristic(cfg.Baselines[0])
	if err != nil {
		return "", err
	}
	h := sha256.New()
	enc := json.NewEncoder(h)
	opts := env.RunOptions{Episodes: 1, Rounds: s.Rounds, Seed: study.EvalSeed(cfg.Seed), Workers: 1}
	err = env.Play(e, p, opts, func(ep *data.Episode) error { return enc.Encode(ep) })
	if err != nil {
		return "", fmt.Errorf("study: shard inputs: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// diffInputs names the inputs in which o differs from s, "" when none.
func diffInputs(s, o map[string]string) string {
	var diff []string
	for k, v := range s {
		if o[k] != v {
			diff = append(diff, k)
		}
	}
	for k := range o {
		if _, ok := s[k]; !ok {
			diff = append(diff, k)
		}
	}
	if len(diff) == 0 {
		return ""
	}
	slices.Sort(diff)
	return "other " + strings.Join(diff, ", ") + " (" + inputWords(diff) + ")"
}

// inputWords says what differing inputs mean.
func inputWords(keys []string) string {
	words := map[string]string{
		"mpdf":    "another mpdf build",
		"config":  "other study flags",
		"trainer": "another trainer",
		"env":     "another environment",
		"tasks":   "other tasks",
		"data":    "other transcripts",
		"play":    "the environment plays otherwise",
	}
	var out []string
	for _, k := range keys {
		if w, ok := words[k]; ok {
			out = append(out, w)
		} else {
			out = append(out, k)
		}
	}
	return strings.Join(out, "; ")
}

// writeRecord writes r to path atomically.
func writeRecord(path string, r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return outfile.WriteLine(path, b)
}

// ReadRecord reads and checks the shard record at path: a study shard's
// directory or its study.ShardName file.
func ReadRecord(path string) (*Record, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = RecordPath(path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > maxShardBytes {
		return nil, fmt.Errorf("%s: %d bytes, over the %d-byte limit of a study shard record (split the study into more shards)", path, fi.Size(), maxShardBytes)
	}
	var r Record
	b, err := io.ReadAll(io.LimitReader(f, maxShardBytes))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := jsonscan.CheckStrict(b, &r); err != nil { // a key twice: which value wins?
		return nil, fmt.Errorf("not a study shard record: %w", jsonscan.InFile(path, err))
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("%s: not a study shard record: %w", path, err)
	}
	if err := r.check(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// RecordPath is the record of the study shard in dir.
func RecordPath(dir string) string { return filepath.Join(dir, study.ShardName) }

// check refuses a record that is not one Run writes: its shard, its
// cells' numbers and their rows' tasks.
func (r *Record) check() error {
	if err := (data.ShardHead{Format: r.Format, Version: r.Version, Rule: r.Rule, Shard: r.Shard, Shards: r.Shards}).Check(shardFormat, shardVersion, Rule); err != nil {
		return err
	}
	if r.Cells < 0 {
		return fmt.Errorf("cells %d: want ≥ 0", r.Cells)
	}
	last := -1
	for i, c := range r.Done {
		switch {
		case c.Cell <= last || c.Cell >= r.Cells:
			return fmt.Errorf("done[%d]: cell %d: want increasing, below cells %d", i, c.Cell, r.Cells)
		case c.Cell%r.Shards != r.Shard:
			return fmt.Errorf("done[%d]: cell %d belongs to shard %d/%d, not %d", i, c.Cell, c.Cell%r.Shards, r.Shards, r.Shard)
		}
		last = c.Cell
		for j, row := range c.Rows {
			if row.Index < 0 || row.Index >= len(r.Study.Tasks) || row.Seed != c.Seed || row.Fold != c.Fold {
				return fmt.Errorf("done[%d]: rows[%d]: task %d, seed %d, fold %d: want a task below %d of the cell's seed %d and fold %d",
					i, j, row.Index, row.Seed, row.Fold, len(r.Study.Tasks), c.Seed, c.Fold)
			}
			if c.Policy == baselinesCell && !slices.Contains(r.Study.Fixed, row.Policy) || c.Policy != baselinesCell && row.Policy != c.Policy {
				return fmt.Errorf("done[%d]: rows[%d]: policy %q in a cell of %s", i, j, row.Policy, c.Policy)
			}
		}
	}
	return nil
}

// todo is the number of the shard's cells not done.
func (r *Record) todo() int {
	mine := 0
	if r.Cells > r.Shard {
		mine = (r.Cells-r.Shard-1)/r.Shards + 1
	}
	return mine - len(r.Done)
}
