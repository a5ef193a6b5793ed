package view

import (
	"cmp"
	"fmt"
	"html"
	"html/template"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/mpdf/mpdf/plots"
)

// The frontier chart is SVG written here, not drawn by the page's script:
// the same study gives the same bytes, and the chart shows without
// JavaScript (each point's <title> is the browser's own hover text). The
// script only adds a readout and highlights the policy's table row.

// Chart geometry, in SVG user units.
const (
	frW, frH                       = 720, 380
	frPadL, frPadR, frPadT, frPadB = 56, 150, 16, 44
	frPlotW, frPlotH               = frW - frPadL - frPadR, frH - frPadT - frPadB
	frLearned, frFixed, frOracle   = "#d9660b", "#2b6cb0", "#777"
)

// frontier draws a scope's accuracy (with its interval) against tokens
// per task: the baselines and the oracle as labelled points, the learned
// policies as a line through their λ sweep.
func frontier(id string, sc studyScope) template.HTML {
	if len(sc.Policies) == 0 {
		return ""
	}
	xt, yt, sx, sy := frontierAxes(sc)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg id="chart-%s" class="chart" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="accuracy against tokens per task, %s">`,
		id, frW, frH, frW, frH, html.EscapeString(scopeTitle(sc.Name)))
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" class="frame"/>`, frPadL, frPadT, frPlotW, frPlotH)
	for _, v := range xt {
		x := sx(v)
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" class="grid"/><text x="%.1f" y="%d" class="tick" text-anchor="middle">%s</text>`,
			x, frPadT, x, frPadT+frPlotH, x, frPadT+frPlotH+16, tickLabel(v))
	}
	for _, v := range yt {
		y := sy(v)
		fmt.Fprintf(&b, `<line x1="%d" y1="%.1f" x2="%d" y2="%.1f" class="grid"/><text x="%d" y="%.1f" class="tick" text-anchor="end">%s</text>`,
			frPadL, y, frPadL+frPlotW, y, frPadL-6, y+4, tickLabel(v))
	}
	fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="middle" class="axis">tokens per task</text>`, frPadL+frPlotW/2, frH-6)
	fmt.Fprintf(&b, `<text x="14" y="%d" text-anchor="middle" class="axis" transform="rotate(-90 14 %d)">accuracy (%s interval)</text>`,
		frPadT+frPlotH/2, frPadT+frPlotH/2, levelPercent(sc.Level))
	// The learned policies' curve, in λ order.
	var learned []studyPolicy
	for _, p := range sc.Policies {
		if p.Lambda != nil {
			learned = append(learned, p)
		}
	}
	slices.SortStableFunc(learned, func(a, b studyPolicy) int { return cmp.Compare(*a.Lambda, *b.Lambda) })
	if len(learned) > 1 {
		var pts []string
		for _, p := range learned {
			pts = append(pts, fmt.Sprintf("%.1f,%.1f", sx(p.Tokens), sy(p.Accuracy.Estimate)))
		}
		fmt.Fprintf(&b, `<polyline points="%s" class="curve" stroke="%s"/>`, strings.Join(pts, " "), frLearned)
	}
	labels, placed := frontierLabels(sc, sx, sy)
	for i, p := range sc.Policies {
		x, y := sx(p.Tokens), sy(p.Accuracy.Estimate)
		color := frFixed
		switch {
		case p.Oracle:
			color = frOracle
		case p.Lambda != nil:
			color = frLearned
		}
		tip := fmt.Sprintf("%s: accuracy %.3f [%.3f, %.3f], %.0f tokens/task, %d tasks × seeds",
			p.Policy, p.Accuracy.Estimate, p.Accuracy.Low, p.Accuracy.High, p.Tokens, p.Rows)
		fmt.Fprintf(&b, `<g class="pt" tabindex="0" data-row="%s-p%d" data-tip="%s"><title>%s</title>`,
			id, i, html.EscapeString(tip), html.EscapeString(tip))
		fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" class="bar"/>`, x, sy(p.Accuracy.Low), x, sy(p.Accuracy.High), color)
		if p.Oracle {
			fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="9" height="9" transform="rotate(45 %.1f %.1f)" fill="#fff" stroke="%s" stroke-width="2"/>`, x-4.5, y-4.5, x, y, color)
		} else {
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="5" fill="%s"/>`, x, y, color)
		}
		b.WriteString(`</g>`)
	}
	// The labels after every point, so that no point is drawn over one;
	// a label away from its point has a leader line from the point's
	// edge.
	for i, p := range sc.Policies {
		if labels[i] == "" {
			continue
		}
		color := frFixed
		switch {
		case p.Oracle:
			color = frOracle
		case p.Lambda != nil:
			color = frLearned
		}
		pl := placed[i]
		if pl.Leader {
			x, y := sx(p.Tokens), sy(p.Accuracy.Estimate)
			dx, dy := pl.Anchor.X-x, pl.Anchor.Y-y
			if d := math.Hypot(dx, dy); d > frMarker {
				fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="%s" class="leader"/>`,
					x+dx/d*frMarker, y+dy/d*frMarker, pl.Anchor.X, pl.Anchor.Y, color)
			}
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" class="lbl" fill="%s" data-row="%s-p%d">%s</text>`,
			pl.Box.X0+frLabelPad, pl.Box.Y1-frLabelDescent, color, id, i, html.EscapeString(labels[i]))
	}
	// Legend, right of the plot.
	lx := frPadL + frPlotW + 16
	fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="5" fill="%s"/><text x="%d" y="%d" class="tick">baseline</text>`, lx, frPadT+10, frFixed, lx+10, frPadT+14)
	fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="5" fill="%s"/><text x="%d" y="%d" class="tick">learned, over λ</text>`, lx, frPadT+30, frLearned, lx+10, frPadT+34)
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="9" height="9" transform="rotate(45 %d %d)" fill="#fff" stroke="%s" stroke-width="2"/><text x="%d" y="%d" class="tick">hindsight ceiling</text>`,
		lx-4, frPadT+46, lx, frPadT+50, frOracle, lx+10, frPadT+54)
	b.WriteString(`</svg>`)
	return template.HTML(b.String())
}

// Label geometry: the font size of .lbl (report.css), the room left
// around a label's text, the part of its box below the baseline, and the
// radius of a point's marker.
const (
	frFont         = 11.0
	frLabelPad     = 1.5
	frLabelDescent = 4.0
	frMarker       = 6.0
)

// frontierLabels are the points' labels and where they go. Points that
// fall on one spot (a learned policy that plays as a baseline) share one
// label, given to the last of them; each label is placed beside its point
// where it overlaps no other label, no point and if it can no interval bar
// (plots.Placement), inside the plot's frame.
func frontierLabels(sc studyScope, sx, sy func(float64) float64) ([]string, []plots.Placed) {
	labels := make([]string, len(sc.Policies))
	spot := map[string]int{}
	for i, p := range sc.Policies {
		label := p.Policy
		if p.Lambda != nil {
			label = "λ=" + strconv.FormatFloat(*p.Lambda, 'g', -1, 64)
		}
		k := fmt.Sprintf("%.0f,%.0f", sx(p.Tokens), sy(p.Accuracy.Estimate))
		if j, ok := spot[k]; ok {
			label = labels[j] + ", " + label
			labels[j] = ""
		}
		spot[k], labels[i] = i, label
	}
	var ls []plots.Label
	var at []int // the policy of each label
	var markers, bars []plots.Box
	for i, p := range sc.Policies {
		x, y := sx(p.Tokens), sy(p.Accuracy.Estimate)
		markers = append(markers, plots.Box{X0: x - frMarker, Y0: y - frMarker, X1: x + frMarker, Y1: y + frMarker})
		bars = append(bars, plots.Box{X0: x - 1, Y0: sy(p.Accuracy.High), X1: x + 1, Y1: sy(p.Accuracy.Low)})
		if labels[i] != "" {
			ls = append(ls, plots.Label{X: x, Y: y, W: textWidth(labels[i], frFont) + 2*frLabelPad, H: frFont + 2*frLabelPad + 2})
			at = append(at, i)
		}
	}
	got := plots.DefaultPlacement.Place(ls, markers, bars, frontierFrame)
	placed := make([]plots.Placed, len(sc.Policies))
	for k, i := range at {
		placed[i] = got[k]
	}
	return labels, placed
}

// textWidth is a generous estimate of the width of s in a sans-serif
// font of size px (DejaVu Sans, among the widest, in em per glyph): the
// page's labels are placed by it, and a label drawn wider than its box
// could touch its neighbour.
func textWidth(s string, px float64) float64 {
	em := 0.0
	for _, r := range s {
		switch {
		case strings.ContainsRune("iljtfr.,:;'!|() ", r):
			em += 0.40
		case strings.ContainsRune("mwMW", r):
			em += 1.0
		case r >= 'A' && r <= 'Z':
			em += 0.76
		default:
			em += 0.66
		}
	}
	return em * px
}

// frontierAxes are the chart's ticks, and its scales from tokens and
// accuracy to SVG units.
func frontierAxes(sc studyScope) (xt, yt []float64, sx, sy func(float64) float64) {
	x0, x1 := math.Inf(1), math.Inf(-1)
	y0, y1 := math.Inf(1), math.Inf(-1)
	for _, p := range sc.Policies {
		x0, x1 = min(x0, p.Tokens), max(x1, p.Tokens)
		y0, y1 = min(y0, p.Accuracy.Low, p.Accuracy.Estimate), max(y1, p.Accuracy.High, p.Accuracy.Estimate)
	}
	xt, x0, x1 = niceTicks(x0, x1)
	yt, y0, y1 = niceTicks(max(0, y0), min(1, y1))
	sx = func(v float64) float64 { return frPadL + (v-x0)/(x1-x0)*frPlotW }
	sy = func(v float64) float64 { return frPadT + (y1-v)/(y1-y0)*frPlotH }
	return xt, yt, sx, sy
}

// frontierFrame is the plot's frame, in which the labels stay.
var frontierFrame = plots.Box{X0: frPadL, Y0: frPadT, X1: frPadL + frPlotW, Y1: frPadT + frPlotH}

// niceTicks returns about five round tick values covering [lo, hi], and the
// axis range they span.
func niceTicks(lo, hi float64) ([]float64, float64, float64) {
	if !(hi > lo) {
		d := max(math.Abs(lo)*0.05, 0.01)
		lo, hi = lo-d, hi+d
	}
	raw := (hi - lo) / 5
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	step := mag
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if m*mag >= raw {
			step = m * mag
			break
		}
	}
	a, z := math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	var t []float64
	for v := a; v <= z+step/2; v += step {
		t = append(t, math.Round(v/step)*step)
	}
	return t, a, z
}

// tickLabel prints a tick value without trailing zeros.
func tickLabel(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}
