package view

import (
	"encoding/json"

	"github.com/mpdf/mpdf/plots"
)

// WriteReportBudget is WriteReport with another size budget, for a test
// of what a page over it does.
var WriteReportBudget = writeReport

// ReportLabel is a chart label of a report: its text and box, and the
// point it names.
type ReportLabel struct {
	Text   string
	Box    plots.Box
	X, Y   float64
	Leader bool
}

// ReportLabels are the labels of each scope's chart of a study summary
// (its JSON), in the charts' order, and the frame they must stay in.
func ReportLabels(summary []byte) ([][]ReportLabel, plots.Box, error) {
	var sum studySummary
	if err := json.Unmarshal(summary, &sum); err != nil {
		return nil, plots.Box{}, err
	}
	var out [][]ReportLabel
	for _, sc := range sum.Scopes {
		_, _, sx, sy := frontierAxes(sc)
		labels, placed := frontierLabels(sc, sx, sy)
		var ls []ReportLabel
		for i, p := range sc.Policies {
			if labels[i] != "" {
				ls = append(ls, ReportLabel{Text: labels[i], Box: placed[i].Box, X: sx(p.Tokens), Y: sy(p.Accuracy.Estimate), Leader: placed[i].Leader})
			}
		}
		out = append(out, ls)
	}
	return out, frontierFrame, nil
}
