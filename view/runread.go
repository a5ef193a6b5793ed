package view

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"

	"github.com/mpdf/mpdf/checkpoints"
	"github.com/mpdf/mpdf/plots"
	"github.com/mpdf/mpdf/trainer/run"
)

// A run directory is read through an os.Root: no file is reached through
// a symbolic link that leads out of the root (the run's directory for its
// page, the directory of runs for the index), every read is bounded, and
// what the files hold is data to escape, never markup.

// Caps of what a run's files may hold.
const (
	maxEvalBytes       = 16 << 20  // eval.json (a default run's is 8 kB)
	maxRunJSONBytes    = 64 << 10  // run.json (110 bytes)
	maxCheckpointBytes = 256 << 20 // a checkpoint read for its provenance
	maxConfigEntries   = 2000      // keys of a flattened configuration
	maxConfigDepth     = 16
)

// runData is what a run's directory holds, read once for its page and for
// the index of runs.
type runData struct {
	// Curves are metrics.jsonl's per-step curves and Learning its held-out
	// points and per-iteration advantages; nil without metrics.jsonl.
	Curves   *plots.Curves
	Learning *run.Learning
	Eval     *run.EvalFile // eval.json, or nil
	RunJSON  []kv          // run.json, flattened
	// Info is the provenance of Checkpoint (best.mpdf, else the latest
	// checkpoint), "" and nil when the directory holds none; Config its
	// training configuration and data position, flattened.
	Checkpoint string
	Info       *checkpoints.Info
	Config     []kv
	// CkptStep, CkptAccuracy and CkptTokens are the training rollouts'
	// team accuracy and tokens per episode each kept checkpoint recorded
	// (read only when metrics.jsonl has no held-out point).
	CkptStep, CkptAccuracy, CkptTokens []float64
	// HasViewer says the directory holds RunViewName, a regular file.
	HasViewer bool
}

// kv is one entry of a flattened JSON document: a dotted key and the
// value's JSON text (a string unquoted).
type kv struct{ Key, Value string }

// readRunData reads the run in directory rel of root ("." for the root).
func readRunData(root *os.Root, rel string) (*runData, error) {
	d := &runData{}
	name := func(f string) string { return path.Join(rel, f) }
	if f, err := openRegular(root, name(run.MetricsName)); err == nil {
		d.Curves, d.Learning, err = run.ReadLog(f, name(run.MetricsName))
		f.Close()
		if err != nil {
			return nil, err
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if b, err := readBounded(root, name(run.EvalName), maxEvalBytes); err == nil {
		var ef run.EvalFile
		if err := json.Unmarshal(b, &ef); err != nil {
			return nil, fmt.Errorf("%s: %w", name(run.EvalName), err)
		}
		d.Eval = &ef
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if b, err := readBounded(root, name("run.json"), maxRunJSONBytes); err == nil {
		if d.RunJSON, err = flatten(b); err != nil {
			return nil, fmt.Errorf("%s: %w", name("run.json"), err)
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	steps, err := checkpointFiles(root, rel)
	if err != nil {
		return nil, err
	}
	prov := ""
	if regular(root, name("best.mpdf")) {
		prov = "best.mpdf"
	} else if len(steps) > 0 {
		prov = steps[len(steps)-1]
	}
	if prov != "" {
		ck, size, err := readCheckpoint(root, name(prov))
		if err != nil {
			return nil, err
		}
		d.Checkpoint, d.Info = prov, checkpoints.Describe(ck, prov, size)
		if d.Config, err = configOf(ck.Header); err != nil {
			return nil, fmt.Errorf("%s: %w", name(prov), err)
		}
	}
	if d.Learning == nil || len(d.Learning.HeldOut) == 0 {
		if err := d.readCheckpointCurves(root, rel, steps); err != nil {
			return nil, err
		}
	}
	d.HasViewer = regular(root, name(RunViewName))
	if d.Curves == nil && d.Eval == nil && d.Info == nil {
		return nil, fmt.Errorf("%s: no metrics.jsonl, eval.json or checkpoint: not a training run's directory", rel)
	}
	return d, nil
}

// readCheckpointCurves reads the training rollouts' accuracy and tokens
// that the latest maxCheckpointPoints checkpoints recorded.
func (d *runData) readCheckpointCurves(root *os.Root, rel string, steps []string) error {
	if len(steps) > maxCheckpointPoints {
		steps = steps[len(steps)-maxCheckpointPoints:]
	}
	for _, s := range steps {
		ck, _, err := readCheckpoint(root, path.Join(rel, s))
		if err != nil {
			return err
		}
		a, okA := ck.Header.Metrics["team_accuracy"]
		t, okT := ck.Header.Metrics["tokens_per_episode"]
		if okA && okT {
			d.CkptStep = append(d.CkptStep, float64(ck.Header.Step))
			d.CkptAccuracy, d.CkptTokens = append(d.CkptAccuracy, a), append(d.CkptTokens, t)
		}
	}
	return nil
}

// maxCheckpointPoints caps the checkpoints whose metrics the curve of the
// training rollouts reads (the latest ones; a run keeps run.Config.Keep
// of them).
const maxCheckpointPoints = 200

// checkpointFiles are the names of the step checkpoints in rel, by step
// (ckpt-%08d.mpdf sorts by step), regular files only.
func checkpointFiles(root *os.Root, rel string) ([]string, error) {
	entries, err := fs.ReadDir(root.FS(), rel)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if n := e.Name(); strings.HasPrefix(n, "ckpt-") && strings.HasSuffix(n, ".mpdf") && e.Type().IsRegular() {
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out, nil
}

// openRegular opens name in root, refusing anything but a regular file (a
// FIFO would block, a device never end).
func openRegular(root *os.Root, name string) (*os.File, error) {
	fi, err := root.Stat(name)
	if err != nil {
		if li, lerr := root.Lstat(name); !errors.Is(err, fs.ErrNotExist) && lerr == nil && li.Mode()&fs.ModeSymlink != 0 {
			return nil, fmt.Errorf("%s: a symbolic link leading out of the directory: not followed", name)
		}
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	f, err := root.Open(name)
	if err != nil {
		return nil, err
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: not a regular file", name)
	}
	return f, nil
}

// regular reports whether name is a regular file in root.
func regular(root *os.Root, name string) bool {
	fi, err := root.Stat(name)
	return err == nil && fi.Mode().IsRegular()
}

// readBounded reads the file name of root whole, refusing one over max
// bytes.
func readBounded(root *os.Root, name string, max int64) ([]byte, error) {
	f, err := openRegular(root, name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s: over %d bytes", name, max)
	}
	return b, nil
}

// readCheckpoint decodes the checkpoint name of root, of any feature
// version, and returns it with its size.
func readCheckpoint(root *os.Root, name string) (*checkpoints.Checkpoint, int64, error) {
	f, err := openRegular(root, name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, 0, err
	}
	ck, err := checkpoints.Decode(f, checkpoints.WithFeatureVersion(""), checkpoints.WithMaxBytes(maxCheckpointBytes))
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", name, err)
	}
	return ck, fi.Size(), nil
}

// configOf is a checkpoint's training configuration ("train." keys) and
// data position ("data." keys, its iteration and environment id left
// out: they say where the run stood, not how it was set), flattened.
func configOf(h checkpoints.Header) ([]kv, error) {
	var out []kv
	for _, part := range []struct {
		prefix string
		raw    json.RawMessage
		skip   []string
	}{{"train", h.Train, nil}, {"data", h.DataPos, []string{"data.iter", "data.env_id", "data.epoch", "data.offset", "data.shard"}}} {
		if len(part.raw) == 0 {
			continue
		}
		kvs, err := flatten(part.raw)
		if err != nil {
			return nil, err
		}
	entries:
		for _, e := range kvs {
			e.Key = part.prefix + "." + e.Key
			for _, s := range part.skip {
				if e.Key == s {
					continue entries
				}
			}
			out = append(out, e)
		}
	}
	return out, nil
}

// flatten lists a JSON document's leaves as dotted keys (an array of
// numbers, strings or booleans is one value), in key order; at most
// maxConfigEntries entries and maxConfigDepth levels.
func flatten(raw []byte) ([]kv, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	var out []kv
	var walk func(prefix string, v any, depth int) error
	walk = func(prefix string, v any, depth int) error {
		if depth > maxConfigDepth {
			return fmt.Errorf("nested over %d levels", maxConfigDepth)
		}
		if len(out) >= maxConfigEntries {
			return fmt.Errorf("over %d entries", maxConfigEntries)
		}
		join := func(k string) string {
			if prefix == "" {
				return k
			}
			return prefix + "." + k
		}
		switch t := v.(type) {
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if err := walk(join(k), t[k], depth+1); err != nil {
					return err
				}
			}
			return nil
		case []any:
			scalar := true
			for _, e := range t {
				switch e.(type) {
				case map[string]any, []any:
					scalar = false
				}
			}
			if !scalar {
				for i, e := range t {
					if err := walk(join(fmt.Sprint(i)), e, depth+1); err != nil {
						return err
					}
				}
				return nil
			}
		case string:
			out = append(out, kv{prefix, t})
			return nil
		}
		b, err := json.Marshal(v)
		if err != nil {
			return err
		}
		out = append(out, kv{prefix, string(b)})
		return nil
	}
	if err := walk("", v, 0); err != nil {
		return nil, err
	}
	return out, nil
}

// sortedKeys are m's keys in order.
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
