package view

import (
	"fmt"
	"html"
	"html/template"
	"sort"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/plots"
)

// Geometry of the verdict's accuracy–tokens chart, in SVG pixels.
const (
	verdictW, verdictH = 520, 300
	vPadL, vPadR       = 58, 26
	vPadT, vPadB       = 16, 40
	labelH             = 13 // a label's height (11px text)
	labelFont          = 11 // a label's font size
)

// verdictChart draws the verdict's rows (env.Verdict.Rows) as points:
// tokens per task across, accuracy up with its 95% interval as a whisker;
// the learned policy in blue, the fixed protocols grey; a row on the
// accuracy–tokens frontier filled, a dominated one hollow; the row the
// verdict says to use ringed. Each point is labelled with its policy, the
// labels placed so that none overlaps another (placeLabels).
func verdictChart(v *env.Verdict) template.HTML {
	var acc, tok [][]float64
	for _, r := range v.Rows {
		acc = append(acc, []float64{r.Accuracy, r.CILow, r.CIHigh})
		tok = append(tok, []float64{r.TokensPerTask})
	}
	y0, y1 := yRange(yShare, acc...)
	_, x1 := yRange(yCount, tok...)
	_, x1 = yRange(yCount, []float64{x1 * 1.1}) // room for the rightmost label
	pw, ph := float64(verdictW-vPadL-vPadR), float64(verdictH-vPadT-vPadB)
	px := func(t float64) float64 { return vPadL + t/x1*pw }
	py := func(a float64) float64 { return vPadT + (1-(a-y0)/(y1-y0))*ph }
	var b strings.Builder
	fmt.Fprintf(&b, `<figure class="chart vchart"><svg id="verdict-chart" width="%d" height="%d" viewBox="0 0 %d %d" role="img">`, verdictW, verdictH, verdictW, verdictH)
	b.WriteString(`<title>accuracy against tokens per task, one point per policy of the verdict</title>`)
	for _, a := range ticks(y0, y1) {
		fmt.Fprintf(&b, `<line x1="%d" x2="%.1f" y1="%.1f" y2="%.1f" stroke="#eee"/>`, vPadL, vPadL+pw, py(a), py(a))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="a" text-anchor="end">%s</text>`, vPadL-4, py(a)+4, num(a))
	}
	for _, t := range ticks(0, x1) {
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%.1f" stroke="#eee"/>`, px(t), px(t), vPadT, vPadT+ph)
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="a" text-anchor="middle">%s</text>`, px(t), vPadT+ph+14, num(t))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.0f" height="%.0f" fill="none" stroke="#bbb"/>`, vPadL, vPadT, pw, ph)
	fmt.Fprintf(&b, `<text x="%.1f" y="%d" class="a" text-anchor="middle">tokens per task</text>`, vPadL+pw/2, verdictH-6)
	fmt.Fprintf(&b, `<text x="12" y="%.1f" class="a" text-anchor="middle" transform="rotate(-90 12 %.1f)">accuracy</text>`, vPadT+ph/2, vPadT+ph/2)
	pts := make([]labelPoint, len(v.Rows))
	for i, r := range v.Rows {
		pts[i] = labelPoint{X: px(r.TokensPerTask), Y: py(r.Accuracy), Top: py(r.CIHigh), Bottom: py(r.CILow), Text: r.Policy}
	}
	boxes := placeLabels(pts, vPadL, vPadT, vPadL+pw, vPadT+ph)
	for i, r := range v.Rows {
		color := "#777"
		if r.Learned {
			color = "#1f77b4"
		}
		fill := color
		if !r.Frontier {
			fill = "#fff"
		}
		tip := fmt.Sprintf("%s: accuracy %.3f [%.3f, %.3f], %.0f tokens per task", r.Policy, r.Accuracy, r.CILow, r.CIHigh, r.TokensPerTask)
		if r.Frontier {
			tip += ", on the frontier"
		} else if r.DominatedBy != "" {
			tip += ", dominated by " + r.DominatedBy
		}
		fmt.Fprintf(&b, `<g class="vp" data-policy="%s" data-accuracy="%s" data-tokens="%s"><title>%s</title>`,
			html.EscapeString(r.Policy), strconv.FormatFloat(r.Accuracy, 'g', -1, 64), strconv.FormatFloat(r.TokensPerTask, 'g', -1, 64), html.EscapeString(tip))
		fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>`, pts[i].X, pts[i].X, py(r.CILow), py(r.CIHigh), color)
		if r.Policy == v.Use {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="8" fill="none" stroke="#e6a700" stroke-width="2.5"/>`, pts[i].X, pts[i].Y)
		}
		fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="4.5" fill="%s" stroke="%s" stroke-width="1.5"/>`, pts[i].X, pts[i].Y, fill, color)
		l := boxes[i]
		if l.Leader {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#bbb"/>`, pts[i].X, pts[i].Y, l.AnchorX, l.AnchorY)
		}
		fmt.Fprintf(&b, `<text class="vl" x="%.1f" y="%.1f" fill="%s">%s</text></g>`, l.X, l.Y+labelH-3, color, html.EscapeString(r.Policy))
	}
	b.WriteString(`</svg><figcaption>Each policy of the verdict: tokens per task across, accuracy up, the whisker its 95% interval. Blue: the learned policy; filled: on the accuracy–tokens frontier; ringed: the one the verdict says to use.</figcaption></figure>`)
	return template.HTML(b.String()) // numbers, fixed colours and escaped names only
}

// labelPoint is a point to label, in pixels, with its whisker's ends
// (Top, Bottom: the point's own Y when it has none).
type labelPoint struct {
	X, Y, Top, Bottom float64
	Text              string
}

// labelBox is where a label went: its top-left corner, and whether it
// sits away from its point (a leader line joins them, to AnchorX, AnchorY).
type labelBox struct {
	X, Y, W, AnchorX, AnchorY float64
	Leader                    bool
}

// placeLabels places each point's label with plots' placement (the study
// report's rule: the nearest free spot, no two labels overlapping, none
// leaving the plot (x0, y0)–(x1, y1), clear of every marker, a whisker
// crossed only where going round it costs more), points taken top to
// bottom. Widths are textWidth's estimate, as the study report's.
func placeLabels(pts []labelPoint, x0, y0, x1, y1 float64) []labelBox {
	order := make([]int, len(pts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return pts[order[a]].Y < pts[order[b]].Y })
	labels := make([]plots.Label, len(pts))
	var markers, lines []plots.Box
	for k, i := range order {
		p := pts[i]
		labels[k] = plots.Label{X: p.X, Y: p.Y, W: textWidth(p.Text, labelFont) + 2, H: labelH}
		markers = append(markers, plots.Box{X0: p.X - 6, Y0: p.Y - 6, X1: p.X + 6, Y1: p.Y + 6})
		lines = append(lines, plots.Box{X0: p.X - 4, Y0: min(p.Top, p.Y), X1: p.X + 4, Y1: max(p.Bottom, p.Y)})
	}
	placed := plots.DefaultPlacement.Place(labels, markers, lines, plots.Box{X0: x0 + 1, Y0: y0 + 1, X1: x1 - 1, Y1: y1 - 1})
	out := make([]labelBox, len(pts))
	for k, i := range order {
		b := placed[k]
		out[i] = labelBox{X: b.Box.X0, Y: b.Box.Y0, W: b.Box.X1 - b.Box.X0, AnchorX: b.Anchor.X, AnchorY: b.Anchor.Y, Leader: b.Leader}
	}
	return out
}
