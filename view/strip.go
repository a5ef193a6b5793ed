package view

import "fmt"

// bar is one policy's line of the page's summary strip: its accuracy with
// the 95% interval on a 0–100% scale, and its tokens per task on a scale
// from 0 to the most any policy spent. Widths and offsets are percents of
// the bar's track, written as CSS lengths; the figures are the Summary's.
type bar struct {
	Summary
	AccW, LoW, CIW, TokW string
}

// bars lays out the strip of sums.
func bars(sums []Summary) []bar {
	most := 0.0
	for _, s := range sums {
		most = max(most, s.TokensPerTask)
	}
	out := make([]bar, len(sums))
	for i, s := range sums {
		out[i] = bar{Summary: s, AccW: pct1(s.Accuracy), LoW: pct1(s.CILow), CIW: pct1(s.CIHigh - s.CILow), TokW: "0"}
		if most > 0 {
			out[i].TokW = pct1(s.TokensPerTask / most)
		}
	}
	return out
}

// pct1 is x (a share) as a percent with one decimal, clamped to 0–100.
func pct1(x float64) string { return fmt.Sprintf("%.1f", 100*min(max(x, 0), 1)) }
