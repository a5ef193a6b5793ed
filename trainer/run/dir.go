package run

// A directory belongs to one run. A fresh run refuses a directory holding
// files (ErrNotEmpty) unless Config.Overwrite, which removes only the
// files above. Every input (config, initial weights, data paths, a pack's
// feature width and version, the best metric) is checked before the
// directory is touched, so a typo never costs a run its history; offline,
// that includes one full streaming pass over the data (a torn JSONL line,
// a missing or corrupt shard, data without a decision fail here, before
// anything is written). A fresh run that fails before its first
// checkpoint removes what it wrote (metrics.jsonl, run.json, and the lock
// file and directory when it made them), so the retry is not refused.

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/outfile"
)

// The files a run writes into its directory.
const (
	MetricsName = "metrics.jsonl"
	CurveName   = "curve.png"
	WeightsName = "policy.safetensors"
	EvalName    = "eval.json"
	// PageName is the run's HTML page (package view: mpdf view RUN_DIR,
	// and mpdf train at the end of a run), drawn from the files above:
	// Overwrite removes it with them.
	PageName = "index.html"
	// ViewName is the viewer page of the final evaluation's questions
	// (package view, written by mpdf train beside the run's page), which
	// the run's page links to.
	ViewName = "view.html"
)

// ErrNotEmpty is wrapped by the error Train returns for a fresh run into a
// directory that holds files: resume that run (Config.Resume), give
// another directory, or set Config.Overwrite.
var ErrNotEmpty = outfile.ErrNotEmpty

// isRunFile reports whether name is a file a run writes (or a temporary
// file of one), which Overwrite may remove.
func isRunFile(name string) bool {
	switch name {
	case MetricsName, CurveName, WeightsName, EvalName, PageName, ViewName, LockName, IdentityName, "best.mpdf":
		return true
	}
	base := strings.TrimPrefix(name, ".")
	return strings.HasPrefix(base, "ckpt-") || strings.HasPrefix(base, "best.mpdf") ||
		strings.HasPrefix(base, MetricsName) || strings.HasPrefix(base, WeightsName) ||
		strings.HasPrefix(base, CurveName) || strings.HasPrefix(base, EvalName) ||
		strings.HasPrefix(base, IdentityName) || strings.HasPrefix(base, PageName) || strings.HasPrefix(base, ViewName)
}

// prepareFresh makes sure a fresh run does not mix with what its locked
// directory holds: an empty directory (but for the lock) is used as is;
// one with files is refused, or with overwrite cleared of the files a run
// writes. Files a run does not write are never removed.
func prepareFresh(l *DirLock, overwrite bool) error {
	if err := l.d.Fresh(overwrite, isRunFile); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}
