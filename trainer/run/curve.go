package run

import (
	"io"

	"github.com/mpdf/mpdf/outfile"

	"github.com/mpdf/mpdf/plots"
)

// curveOf is the curve of a run's history; skipped steps are left out.
func curveOf(history []StepLine) *plots.Curves {
	c := &plots.Curves{}
	for _, s := range history {
		if s.Skipped == "" {
			m := &s.Metrics
			c.Add(s.Step, m.Reward, m.KL, m.Entropy, m.ActPersist, m.ActRefine, m.ActConcede)
		}
	}
	return c
}

// writeCurve draws the training curves (reward, KL to the reference,
// entropy, action shares over steps) into path.
func writeCurve(path string, c *plots.Curves) error {
	return outfile.WriteFile(path, func(w io.Writer) error { return plots.WriteCurves(w, c) })
}
