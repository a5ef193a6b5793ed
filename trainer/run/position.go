package run

// Crashes, resume and cancellation.
//
// Checkpoints are written atomically (checkpoints.Manager), so a crash or
// kill -9 loses at most the iteration under way. Resume (Latest, then
// Config.Resume) continues from the latest checkpoint with the optimiser
// moments, step count and random state, giving the bytes of a run never
// interrupted; it truncates metrics.jsonl to the checkpoint's step (lines
// a killed process wrote after it, a torn last line), so the log, the
// curve and Result.Shares describe one history. A cancelled context
// (SIGINT, SIGTERM in mpdf train) stops at the next iteration, epoch or
// chunk with the last checkpoint intact, and cuts metrics.jsonl back to it;
// so does a run that fails (a full disk, a write error).
//
// Each checkpoint stores the Position: the iteration reached, the
// environment (online) or the paths and SHA-256 of the data (offline), and
// the Options given at the start (evaluation tasks, checkpoints kept, best
// metric). A resume refuses to switch an offline run to online or back,
// and refuses other data than the run trained on unless
// Config.AllowOtherData.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/trainer"
)

// Position is where a run stands, stored in every checkpoint (the header's
// data_pos) so that a resume continues the same run: the iteration reached,
// the data or environment trained on and the options given at the start.
// Fields are only ever added: checkpoints of older builds carry the first
// five.
type Position struct {
	Mode string `json:"mode"` // online or offline
	Iter int    `json:"iter"` // iterations (or passes) completed
	// Online: the environment and, for a replay, its split.
	Env       string  `json:"env,omitempty"`
	HeldOut   float64 `json:"held_out,omitempty"`
	SplitSeed uint64  `json:"split_seed,omitempty"`
	// EnvID is the EnvID of the training and held-out tasks (absent in
	// checkpoints of older builds: not checked then).
	EnvID string `json:"env_id,omitempty"`
	// Offline: the data trained on.
	Data *DataID `json:"data,omitempty"`
	// The options of the run's start, so that a resume keeps them.
	Options *Options `json:"options,omitempty"`
}

// Options are the run's settings outside trainer.Config that a resume
// keeps unless told otherwise.
type Options struct {
	EvalTasks   int    `json:"eval_tasks"`
	Keep        int    `json:"keep"`
	BestMetric  string `json:"best_metric"`
	SkipInvalid bool   `json:"skip_invalid,omitempty"`
	// FeatureWidth is the width of the decisions trained on (offline).
	FeatureWidth int `json:"feature_width,omitempty"`
	// MetricsEvery is the grain of metrics.jsonl when it is not the
	// mode's default (Config.MetricsEvery); a resume keeps it.
	MetricsEvery string `json:"metrics_every,omitempty"`
	// EvalEvery is Config.EvalEvery. Checkpoints do not record it (it
	// changes nothing trained): a resume takes its own.
	EvalEvery int `json:"eval_every,omitempty"`
}

// DataID names offline data: its paths as given and a SHA-256 of the
// content of every file they expand to, so that a resume can tell whether
// it is given the data the run trained on. A pack is named by its
// manifest.json, which holds the SHA-256 of each shard: hashing it is
// instant, where rollout files are read whole once more (about 200 MB/s
// on the 2-core machine of BenchmarkIdentifyData).
type DataID struct {
	Paths  []string `json:"paths"`
	SHA256 string   `json:"sha256"`
}

// Same reports whether d and o identify the same bytes.
func (d *DataID) Same(o *DataID) bool { return d != nil && o != nil && d.SHA256 == o.SHA256 }

// IdentifyData expands paths (files, globs, or one pack directory) and
// hashes the content of every file, streaming. It fails on a path that
// names nothing, so it also validates the inputs before a run starts.
func IdentifyData(paths []string) (*DataID, error) {
	files, err := expand(paths)
	if err != nil {
		return nil, err
	}
	h := sha256.New()
	for _, p := range files {
		f, err := os.Open(p)
		if err != nil {
			return nil, fmt.Errorf("run: data: %w", err)
		}
		fmt.Fprintf(h, "%s\x00", filepath.Base(p))
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("run: data: %s: %w", p, err)
		}
	}
	return &DataID{Paths: slices.Clone(paths), SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// expand lists the files to hash for paths: a file as is, a pack's
// manifest, another directory's regular files in walk (name) order, a
// glob's matches in lexical order.
func expand(paths []string) ([]string, error) {
	var out []string
	for _, a := range paths {
		fi, err := os.Stat(a)
		if err == nil && fi.IsDir() {
			if m := filepath.Join(a, "manifest.json"); fileExists(m) {
				out = append(out, m) // a pack: the manifest holds the shards' SHA-256
				continue
			}
			err := filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if d.Type().IsRegular() {
					out = append(out, p)
				}
				return nil
			})
			if err != nil {
				return nil, fmt.Errorf("run: data: %w", err)
			}
			continue
		}
		if err == nil {
			out = append(out, a)
			continue
		}
		m, gerr := filepath.Glob(a)
		if gerr != nil || len(m) == 0 {
			return nil, fmt.Errorf("run: data: %s: no such file", a)
		}
		out = append(out, m...)
	}
	return out, nil
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// Resumable is the state of an interrupted (or finished) run: its latest
// step checkpoint, with the config and position stored in it.
type Resumable struct {
	Path       string
	Checkpoint *checkpoints.Checkpoint
	Config     trainer.Config
	Position   Position
}

// Latest reads the latest step checkpoint of the run in dir, to resume it.
// Every checkpoint in dir must be the run's: one whose header names
// another run than run.json (a file copied in from elsewhere) is refused
// by name, as are checkpoints of two runs in a directory of an older build
// without run.json. The checkpoint's feature version is not checked here:
// the run checks it against the data it trains on.
func Latest(dir string) (*Resumable, error) {
	if _, _, err := dirRun(dir); err != nil {
		return nil, err
	}
	path, err := checkpoints.Latest(dir)
	if err != nil {
		return nil, fmt.Errorf("run: resume: %w", err)
	}
	ck, err := checkpoints.Load(path, checkpoints.WithFeatureVersion(""))
	if err != nil {
		return nil, fmt.Errorf("run: resume: %w", err)
	}
	r := &Resumable{Path: path, Checkpoint: ck, Config: trainer.DefaultConfig()}
	if err := json.Unmarshal(ck.Header.Train, &r.Config); err != nil {
		return nil, fmt.Errorf("run: resume: %s: stored config: %w", path, err)
	}
	pos, ok, err := PositionOf(&ck.Header)
	switch {
	case err != nil:
		return nil, fmt.Errorf("run: resume: %s: %w", path, err)
	case !ok:
		return nil, fmt.Errorf("run: resume: %s: no data position stored: not a checkpoint of a training run", path)
	}
	if pos.Mode != "online" && pos.Mode != "offline" {
		return nil, fmt.Errorf("run: resume: %s: data position: mode %q, want online or offline", path, pos.Mode)
	}
	r.Position = pos
	return r, nil
}

// PositionOf reads the data position a run stores in its checkpoints' header;
// ok is false when the header holds none (a checkpoint not written by a run).
func PositionOf(h *checkpoints.Header) (pos Position, ok bool, err error) {
	if len(h.DataPos) == 0 {
		return Position{}, false, nil
	}
	if err := json.Unmarshal(h.DataPos, &pos); err != nil {
		return Position{}, false, fmt.Errorf("data position: %w", err)
	}
	return pos, true, nil
}
