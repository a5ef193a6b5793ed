package view

// The run page's and the index's rules, for tests: the y range of a
// share, a count and a signed series; the smoothing; the label placement
// of the verdict's chart.
var (
	YRangeShare  = func(v []float64) (float64, float64) { return yRange(yShare, v) }
	YRangeCount  = func(v []float64) (float64, float64) { return yRange(yCount, v) }
	YRangeSigned = func(v []float64) (float64, float64) { return yRange(ySigned, v) }
	EMA          = ema
)

// LabelBox is a placed label's box.
type LabelBox struct{ X, Y, W, H float64 }

// PlaceLabels places labels of the given texts at the points (x, y),
// each with a whisker 20 px up and down, in the plot (x0, y0)–(x1, y1),
// as the verdict's chart does.
func PlaceLabels(x, y []float64, texts []string, x0, y0, x1, y1 float64) []LabelBox {
	pts := make([]labelPoint, len(x))
	for i := range x {
		pts[i] = labelPoint{X: x[i], Y: y[i], Top: y[i] - 20, Bottom: y[i] + 20, Text: texts[i]}
	}
	var out []LabelBox
	for _, b := range placeLabels(pts, x0, y0, x1, y1) {
		out = append(out, LabelBox{b.X, b.Y, b.W, labelH})
	}
	return out
}
