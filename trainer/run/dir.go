package run

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// The files a run writes into its directory.
const (
	MetricsName = "metrics.jsonl"
	CurveName   = "curve.png"
	WeightsName = "policy.safetensors"
	EvalName    = "eval.json"
)

// ErrNotEmpty is wrapped by the error Run returns for a fresh run into a
// directory that holds files: resume that run (Config.Resume), give
// another directory, or set Config.Overwrite.
var ErrNotEmpty = errors.New("run directory is not empty")

// isRunFile reports whether name is a file a run writes (or a temporary
// file of one), which Overwrite may remove.
func isRunFile(name string) bool {
	switch name {
	case MetricsName, CurveName, WeightsName, EvalName, LockName, "best.mpdf":
		return true
	}
	base := strings.TrimPrefix(name, ".")
	return strings.HasPrefix(base, "ckpt-") || strings.HasPrefix(base, "best.mpdf") ||
		strings.HasPrefix(base, MetricsName) || strings.HasPrefix(base, WeightsName) ||
		strings.HasPrefix(base, CurveName) || strings.HasPrefix(base, EvalName)
}

// prepareFresh makes sure a fresh run does not mix with what dir holds:
// an empty directory (but for the lock) is used as is; one with files is
// refused, or with overwrite cleared of the files a run writes. Files a
// run does not write are never removed.
func prepareFresh(dir string, overwrite bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	var found []string
	for _, e := range entries {
		if e.Name() != LockName {
			found = append(found, e.Name())
		}
	}
	if len(found) == 0 {
		return nil
	}
	if !overwrite {
		more := ""
		if len(found) > 3 {
			more = fmt.Sprintf(" and %d more", len(found)-3)
			found = found[:3]
		}
		return fmt.Errorf("run: %s: %w (%s%s)", dir, ErrNotEmpty, strings.Join(found, ", "), more)
	}
	var errs []error
	for _, name := range found {
		if !isRunFile(name) {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("run: overwrite: %w", err)
	}
	return nil
}
