package run

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"

	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/plots"
)

// writeCurve draws the training curves (reward, KL to the reference,
// entropy, action shares over steps, at most plots.DefaultMaxPoints
// points a series) into path, stopping when ctx is done.
func writeCurve(ctx context.Context, path string, c *plots.Curves) error {
	return outfile.WriteFile(path, func(w io.Writer) error { return plots.WriteCurvesContext(ctx, w, c) })
}

// ReadCurves reads the metrics.jsonl of the run directory dir into the
// curves curve.png draws: reward, KL, entropy and action shares, at most
// plots.DefaultMaxPoints points a series whatever the run's length (each
// point a bucket of steps, with its range). A torn last line (a killed
// writer) ends the log; a line that does not read is an error naming it.
func ReadCurves(dir string) (*plots.Curves, error) {
	l, err := readLogDir(dir)
	if err != nil {
		return nil, err
	}
	return l.curve.Curves(), nil
}

// readLogDir reads the metrics.jsonl of the run directory dir whole
// (ReadCurves, ReadLearning).
func readLogDir(dir string) (*metricsLog, error) {
	var l metricsLog
	path := filepath.Join(dir, MetricsName)
	if _, err := os.Stat(path); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	if err := l.load(path, math.MaxInt64, nil); err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	return &l, nil
}

// ReadLog reads a metrics.jsonl from r in one pass, named name in its
// errors: the curves ReadCurves reads and the Learning ReadLearning reads.
// Memory is bounded whatever r's length (a line over 64 KiB is an error,
// the curves are at most plots.DefaultMaxPoints points a series); a torn
// last line ends the log. For a reader that opens the file itself (no
// symlink out of a directory of runs, say).
func ReadLog(r io.Reader, name string) (*plots.Curves, *Learning, error) {
	var l metricsLog
	if err := l.loadFrom(r, name, math.MaxInt64, nil); err != nil {
		return nil, nil, fmt.Errorf("run: %w", err)
	}
	return l.curve.Curves(), l.learning(), nil
}
