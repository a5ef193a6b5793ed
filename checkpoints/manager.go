package checkpoints

// Manager.Save writes Dir/ckpt-%08d.mpdf (the step, zero-padded), then, when
// BestMetric is set and the checkpoint's metric beats the best so far
// (strictly: ties keep the earlier file; HigherIsBetter chooses the
// direction), writes the same bytes to Dir/best.mpdf, atomically. A fresh
// Manager learns the best so far from best.mpdf, so a resumed run keeps
// ranking against it. A checkpoint without the metric leaves best.mpdf alone.
// Then it removes the step files beyond the KeepLast highest steps (0 keeps
// all), never the file just written, and stray temporary files. Latest
// returns the step file with the highest step. One process writes a directory
// at a time.

import (
	"cmp"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// BestName is the file Manager keeps the best checkpoint in.
const BestName = "best.mpdf"

// BestLast is the BestMetric that keeps the latest checkpoint as best.mpdf:
// its "metric" is the step, higher better.
const BestLast = "last"

// StepName is the file name of the checkpoint at step: ckpt-%08d.mpdf.
func StepName(step int64) string { return fmt.Sprintf("ckpt-%08d.mpdf", step) }

// Manager saves a run's checkpoints into Dir, keeps the last KeepLast of
// them and a copy of the best one by a metric. One Manager (one process)
// writes a directory at a time; trainer/run's LockDir enforces that for
// training runs.
type Manager struct {
	// Dir holds the checkpoints; Save creates it when missing.
	Dir string
	// KeepLast is how many step checkpoints to keep, the highest steps; 0
	// (or less) keeps them all.
	KeepLast int
	// BestMetric names the Header.Metrics entry that ranks checkpoints for
	// best.mpdf; "" keeps no best copy. A checkpoint without the metric
	// leaves best.mpdf as it is.
	BestMetric string
	// HigherIsBetter ranks by the metric descending (e.g. "reward");
	// otherwise lower wins (e.g. "loss"). Ties keep the earlier file.
	HigherIsBetter bool
	// OnBest, when set, is called after best.mpdf has been replaced, with
	// the checkpoint and the exact bytes written: what must follow the
	// best file (a run's policy.safetensors) is derived from these, not
	// from a later read. Its error is Save's.
	OnBest func(c *Checkpoint, data []byte) error
	// Run, when set, is the run whose checkpoints the Manager keeps: Save
	// refuses a checkpoint whose Header.Run differs; retention counts and
	// removes only step files of this run (or without a run, from builds
	// before run ids), leaving another run's alone; and a best.mpdf of
	// another run is an error (a *ForeignError), never replaced.
	Run string

	wrote     map[string]bool // step files this Manager wrote
	best      float64
	haveBest  bool
	bestKnown bool // best.mpdf has been read (or found missing)
}

// Save writes c as Dir/StepName(c.Header.Step) and returns its path; then
// replaces best.mpdf when c is better by BestMetric, and prunes the step
// checkpoints to KeepLast. Every file is written atomically (see Save), so
// an error leaves the previous files intact. When the step file is written
// but a later stage fails, Save returns its path together with the error.
func (m *Manager) Save(c *Checkpoint) (string, error) {
	if err := os.MkdirAll(m.Dir, 0o755); err != nil {
		return "", fmt.Errorf("checkpoints: %w", err)
	}
	if m.Run != "" && c.Header.Run != m.Run {
		return "", fmt.Errorf("checkpoints: save: checkpoint of run %q, the Manager keeps run %q", c.Header.Run, m.Run)
	}
	b, err := Marshal(c)
	if err != nil {
		return "", err
	}
	path := filepath.Join(m.Dir, StepName(c.Header.Step))
	if m.Run != "" && !m.wrote[path] && regularFile(path) && !m.owns(path) {
		// Never write over another run's checkpoint.
		h, _ := ReadHeader(path)
		run := "unknown: its header cannot be read"
		if h != nil {
			run = h.Run
		}
		return "", &ForeignError{Path: path, Run: run, Want: m.Run}
	}
	if err := writeFileAtomic(path, bytesWriter(b)); err != nil {
		return "", err
	}
	if m.wrote == nil {
		m.wrote = map[string]bool{}
	}
	m.wrote[path] = true
	if err := m.updateBest(c, b); err != nil {
		return path, err
	}
	return path, m.prune(path)
}

// metric is h's value of BestMetric (its step for BestLast).
func (m *Manager) metric(h *Header) (float64, bool) {
	if m.BestMetric == BestLast {
		return float64(h.Step), true
	}
	v, ok := h.Metrics[m.BestMetric]
	return v, ok
}

// updateBest writes b as best.mpdf when c's metric beats the best so far.
func (m *Manager) updateBest(c *Checkpoint, b []byte) error {
	if m.BestMetric == "" {
		return nil
	}
	v, ok := m.metric(&c.Header)
	if !ok {
		return nil
	}
	bestPath := filepath.Join(m.Dir, BestName)
	if !m.bestKnown {
		// Continue from the best of an earlier process (a resumed run).
		old, err := Load(bestPath, WithFeatureVersion(""))
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil:
			return fmt.Errorf("checkpoints: reading the current best: %w", err)
		case m.Run != "" && old.Header.Run != "" && old.Header.Run != m.Run:
			return &ForeignError{Path: bestPath, Run: old.Header.Run, Want: m.Run}
		default:
			m.best, m.haveBest = m.metric(&old.Header)
		}
		m.bestKnown = true
	}
	if m.haveBest && !(m.HigherIsBetter && v > m.best) && !(!m.HigherIsBetter && v < m.best) {
		return nil
	}
	if err := writeFileAtomic(bestPath, bytesWriter(b)); err != nil {
		return err
	}
	m.best, m.haveBest = v, true
	if m.OnBest != nil {
		return m.OnBest(c, b)
	}
	return nil
}

// prune removes the oldest step checkpoints beyond KeepLast, never keep
// (the file just written), and temporary files left by a crashed writer.
func (m *Manager) prune(keep string) error {
	steps, err := list(m.Dir)
	if err != nil {
		return err
	}
	if m.Run != "" && m.KeepLast > 0 && len(steps) > m.KeepLast {
		// Count only the run's own (headers read only when some may go).
		steps = slices.DeleteFunc(steps, func(s stepFile) bool { return !m.owns(s.path) })
	}
	var errs []error
	if m.KeepLast > 0 && len(steps) > m.KeepLast {
		for _, s := range steps[:len(steps)-m.KeepLast] {
			if s.path == keep {
				continue
			}
			if err := os.Remove(s.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	for _, pat := range []string{tempPattern("ckpt-*.mpdf"), tempPattern(BestName)} {
		stale, _ := filepath.Glob(filepath.Join(m.Dir, pat))
		for _, p := range stale {
			if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("checkpoints: prune: %w", err)
	}
	return nil
}

// Latest returns the path of the step checkpoint with the highest step in
// dir, the one to resume from. With none, the error wraps fs.ErrNotExist.
func Latest(dir string) (string, error) {
	steps, err := list(dir)
	if err != nil {
		return "", err
	}
	if len(steps) == 0 {
		return "", fmt.Errorf("checkpoints: %s: no ckpt-*.mpdf: %w", dir, fs.ErrNotExist)
	}
	return steps[len(steps)-1].path, nil
}

type stepFile struct {
	step int64
	path string
}

// list returns the step checkpoints in dir, by step ascending.
func list(dir string) ([]stepFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	var out []stepFile
	for _, e := range entries {
		name := e.Name()
		digits, ok1 := strings.CutPrefix(name, "ckpt-")
		digits, ok2 := strings.CutSuffix(digits, ".mpdf")
		if !ok1 || !ok2 || !e.Type().IsRegular() {
			continue
		}
		step, err := strconv.ParseInt(digits, 10, 64)
		if err != nil || step < 0 || name != StepName(step) {
			continue
		}
		out = append(out, stepFile{step, filepath.Join(dir, name)})
	}
	slices.SortFunc(out, func(a, b stepFile) int { return cmp.Compare(a.step, b.step) })
	return out, nil
}
