package run

import (
	"context"
	"io"

	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/plots"
)

// writeCurve draws the training curves (reward, KL to the reference,
// entropy, action shares over steps, at most plots.DefaultMaxPoints
// points a series) into path, stopping when ctx is done.
func writeCurve(ctx context.Context, path string, c *plots.Curves) error {
	return outfile.WriteFile(path, func(w io.Writer) error { return plots.WriteCurvesContext(ctx, w, c) })
}
