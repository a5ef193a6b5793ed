package study

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/view"
)

// Files a study writes into its directory.
const (
	ResultsName = "results.json"  // one row per task × policy × seed (WriteResults)
	ReportName  = "report.md"     // the pooled and per-model tables (Summary.WriteMarkdown)
	ParetoName  = "pareto.png"    // accuracy against tokens, pooled scope (Scope.WritePareto)
	HTMLName    = view.ReportName // report.md's tables and the frontier charts, for a browser (view.WriteReport)
	// LockName names the process writing the directory (its pid and
	// host); its flock is the lock, dropped by the kernel when the
	// process dies, so a file a killed study left is taken over.
	LockName = "study.lock"
)

// Files the other jobs write into a study directory, which OpenDir's
// overwrite removes too.
const (
	AblationReportName = "ablation.md"      // study/ablate's report (Ablation.WriteMarkdown)
	AblationJSONName   = "ablation.json"    // study/ablate's result (Ablation.WriteJSON)
	ShardName          = "study-shard.json" // a study shard's record (study/shards)
)

// ErrNotEmpty is wrapped by OpenDir's error for a directory that holds
// files, without overwrite.
var ErrNotEmpty = outfile.ErrNotEmpty

// ErrLocked is wrapped by OpenDir's error when another process writes the
// directory.
var ErrLocked = errors.New("study directory in use")

// isStudyFile reports whether name is a file a study writes (or a
// temporary file of one): what overwrite may remove.
func isStudyFile(name string) bool {
	switch name {
	case ResultsName, ReportName, ParetoName, HTMLName, LockName, AblationReportName, AblationJSONName, ShardName:
		return true
	}
	base := strings.TrimPrefix(name, ".")
	for _, f := range []string{ResultsName, ReportName, ParetoName, HTMLName, AblationReportName, AblationJSONName, ShardName} {
		if strings.HasPrefix(base, f+".tmp-") {
			return true
		}
	}
	return false
}

// Dir is a study directory held by one study: the rules of a training
// run's directory (trainer/run), through the same outfile.Dir.
type Dir struct{ d *outfile.Dir }

// OpenDir takes dir for one study before it runs: it creates dir when
// missing and takes its lock (a second study into it, in this process or
// another, is refused with an error wrapping ErrLocked that names the
// holder); a directory that holds files (another study's results, say) is
// refused with an error wrapping ErrNotEmpty, unless overwrite, which
// removes only the files a study writes (results.json, report.md,
// pareto.png, report.html and their temporary files). Close releases it.
// Call Check first, so that a bad config never touches the directory.
func OpenDir(dir string, overwrite bool) (*Dir, error) {
	d, err := LockDir(dir)
	if err != nil {
		return nil, err
	}
	if err := d.Fresh(overwrite); err != nil {
		d.Abandon()
		return nil, fmt.Errorf("study: %w", err)
	}
	return d, nil
}

// LockDir takes dir as OpenDir does (created when missing, locked) and
// leaves what it holds: a shard that resumes keeps its record.
func LockDir(dir string) (*Dir, error) {
	d, err := outfile.OpenOwnedDir(dir, LockName, "study", ErrLocked)
	if err != nil {
		return nil, err
	}
	return &Dir{d: d}, nil
}

// Fresh refuses a held directory that holds files with an error wrapping
// ErrNotEmpty, unless overwrite, which removes only the files a study
// writes (OpenDir).
func (d *Dir) Fresh(overwrite bool) error { return d.d.Fresh(overwrite, isStudyFile) }

// Path is the held directory.
func (d *Dir) Path() string { return d.d.Path }

// Write writes the study's four files (WriteDir) into the held directory.
func (d *Dir) Write(s *Study, sum *Summary) error { return s.WriteDir(d.d.Path, sum) }

// Abandon releases a directory the study wrote nothing into, removing the
// lock file and the directory when OpenDir created them.
func (d *Dir) Abandon() error { return d.d.Abandon() }

// Close releases the lock and removes its file.
func (d *Dir) Close() error { return d.d.Unlock() }

// WriteDir writes the study's four files into dir (created if missing),
// each atomically through outfile: a failure leaves any earlier file of the
// same name as it was. sum is s.Summarise()'s result. It does not lock:
// OpenDir and Dir.Write do.
func (s *Study) WriteDir(dir string, sum *Summary) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := outfile.WriteFile(filepath.Join(dir, ResultsName), s.WriteResults); err != nil {
		return err
	}
	if err := outfile.WriteFile(filepath.Join(dir, ReportName), sum.WriteMarkdown); err != nil {
		return err
	}
	if err := outfile.WriteFile(filepath.Join(dir, ParetoName), sum.Scopes[0].WritePareto); err != nil {
		return err
	}
	// report.html is a function of the summary and the rows as the study
	// writes them (view does not import study); the rows go as values,
	// not as JSON to parse back (view.WriteReportRows: the same page).
	var sumJSON bytes.Buffer
	if err := sum.WriteJSON(&sumJSON); err != nil {
		return err
	}
	rows := make([]view.StudyRow, len(s.Rows))
	for i, r := range s.Rows {
		rows[i] = view.StudyRow{Seed: r.Seed, Task: r.Task, Index: r.Index, Model: r.Model, File: r.File, Policy: r.Policy, Scored: r.Scored, Correct: r.Correct}
	}
	return outfile.WriteFile(filepath.Join(dir, HTMLName), func(w io.Writer) error {
		return view.WriteReportRows(w, sumJSON.Bytes(), rows)
	})
}
