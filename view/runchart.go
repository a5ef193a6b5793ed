package view

import (
	"fmt"
	"html"
	"html/template"
	"math"
	"strconv"
	"strings"
)

// The charts of the run page and of the index of runs: inline SVG line
// charts whose y range follows a stated rule (yScale), whose per-step
// series are drawn smoothed (an exponential moving average the page's
// slider sets, the raw line faint behind), and the verdict's
// accuracy–tokens chart. Only numbers, fixed colours and escaped names go
// into them.

// Chart geometry, in SVG pixels.
const (
	chartW, chartH         = 460, 230
	padL, padR, padT, padB = 58, 12, 26, 34
	plotW, plotH           = chartW - padL - padR, chartH - padT - padB
	pointsWithMarks        = 60 // a series this short gets a circle (with its numbers on hover) per point
)

// DefaultSmoothing is the weight of the moving average the per-step
// curves are drawn with when a page opens (the slider's start): a point
// is 0.9 × the average before it + 0.1 × its value, so that a trend shows
// through the step-to-step noise of a 32-task batch. 0 draws the raw
// values.
const DefaultSmoothing = 0.9

// yScale is the rule of a chart's y range, so that the axis says how big a
// change is instead of stretching any change to the full height (a
// min–max axis made 0.807 → 0.906 look like a cliff):
//   - yShare (accuracy, action shares, any share in [0,1]): a window of at
//     least minShareSpan (30 points) holding every value, inside [0,1],
//     its ends on multiples of 0.05;
//   - yCount (tokens, KL, entropy: never negative): from 0 to the largest
//     value;
//   - ySigned (reward): the values' range widened to hold 0.
type yScale int

const (
	yShare yScale = iota
	yCount
	ySigned
)

// minShareSpan is the smallest window a share's axis shows.
const minShareSpan = 0.3

// yRange is the y range of values under rule s.
func yRange(s yScale, vs ...[]float64) (lo, hi float64) {
	lo, hi = span(vs...)
	switch s {
	case yShare:
		lo, hi = max(lo, 0), min(hi, 1)
		if lo > hi { // no finite value in [0,1]
			return 0, 1
		}
		if w := hi - lo; w < minShareSpan {
			lo -= (minShareSpan - w) / 2
			hi = lo + minShareSpan
		}
		if lo < 0 {
			lo, hi = 0, hi-lo
		}
		if hi > 1 {
			lo, hi = lo-(hi-1), 1
		}
		lo, hi = math.Floor(lo*20+1e-9)/20, math.Ceil(hi*20-1e-9)/20
		return max(lo, 0), min(hi, 1)
	case yCount:
		if hi <= 0 {
			return 0, 1
		}
		step := niceStep(hi)
		return 0, math.Ceil(hi/step-1e-9) * step
	}
	return min(lo, 0), max(hi, 0)
}

// niceStep is the gridlines' spacing over a range of width w: 1, 2, 2.5
// or 5 times a power of ten, for 4 to 8 intervals.
func niceStep(w float64) float64 {
	if !(w > 0) || math.IsInf(w, 0) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(w/4)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if w/(m*p) <= 8 {
			return m * p
		}
	}
	return 10 * p
}

// ticks are the gridlines' values in [lo, hi], at multiples of niceStep.
func ticks(lo, hi float64) []float64 {
	step := niceStep(hi - lo)
	var out []float64
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+step*1e-9 && len(out) < 20; k++ {
		out = append(out, k*step+0) // +0: no "-0"
	}
	return out
}

// span is the range of the finite values, widened when empty or flat.
func span(vs ...[]float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range vs {
		for _, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	switch {
	case lo > hi:
		return 0, 1
	case lo == hi:
		return lo - 0.5, hi + 0.5
	}
	return lo, hi
}

// ema is y smoothed by the exponential moving average of weight w, with
// the start's bias removed (as TensorBoard does): the page's script
// computes the same (runpage.js, ema).
func ema(y []float64, w float64) []float64 {
	out := make([]float64, len(y))
	s, d := 0.0, 1.0
	for i, v := range y {
		s = w*s + (1-w)*v
		d *= w
		out[i] = s / (1 - d)
	}
	return out
}

// num is a chart label: a few significant digits, a large number whole.
func num(x float64) string {
	if math.Abs(x) >= 1000 && math.Abs(x) < 1e9 {
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// series is one line of a chart over X (the chart's x when nil), with an
// optional band (lo, hi); Run, when set, names the run it belongs to on
// the index of runs (its checkbox shows and hides it).
type series struct {
	Name, Color string
	X, Y        []float64
	Band        *[2][]float64
	Run         string
}

// lineChart is a chart of series over a shared or per-series x.
type lineChart struct {
	ID, Title, Caption, XLabel string
	X                          []float64
	Series                     []series
	Scale                      yScale
	// Smooth draws each series smoothed (DefaultSmoothing; the page's
	// slider redraws it), over its raw line unless NoRaw.
	Smooth, NoRaw bool
	// Legend shows the series' names under the chart.
	Legend bool
}

// chartData is what the page's script needs to redraw a smoothed chart:
// its geometry and its series' raw values.
type chartData struct {
	X0, X1, Y0, Y1 float64
	G              [4]int // padL, padT, plotW, plotH
	S              []seriesData
}

type seriesData struct {
	X, Y []jsonNum
}

// jsonNum is a finite number as JSON, to 6 significant digits (the page
// draws it; a pixel is a 200th of a chart's range).
type jsonNum float64

func (v jsonNum) MarshalJSON() ([]byte, error) {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', 6, 64), nil
}

func jsonNums(v []float64) []jsonNum {
	out := make([]jsonNum, len(v))
	for i, x := range v {
		out[i] = jsonNum(x)
	}
	return out
}

// render draws c as SVG and, for a smoothed chart, the data its
// redrawing needs (nil otherwise).
func (c *lineChart) render() (template.HTML, *chartData) {
	xs := func(s *series) []float64 {
		if s.X != nil {
			return s.X
		}
		return c.X
	}
	var allX, allY [][]float64
	for i := range c.Series {
		s := &c.Series[i]
		allX, allY = append(allX, xs(s)), append(allY, s.Y)
		if s.Band != nil {
			allY = append(allY, s.Band[0], s.Band[1])
		}
	}
	x0, x1 := span(allX...)
	y0, y1 := yRange(c.Scale, allY...)
	px := func(v float64) float64 { return padL + (v-x0)/(x1-x0)*plotW }
	py := func(v float64) float64 { return padT + (1-(v-y0)/(y1-y0))*plotH }
	var b strings.Builder
	data := &chartData{X0: x0, X1: x1, Y0: y0, Y1: y1, G: [4]int{padL, padT, plotW, plotH}}
	fmt.Fprintf(&b, `<figure class="chart" id="%s"><svg width="%d" height="%d" viewBox="0 0 %d %d" role="img" data-chart="%s">`,
		html.EscapeString(c.ID), chartW, chartH, chartW, chartH, html.EscapeString(c.ID))
	fmt.Fprintf(&b, `<title>%s</title>`, html.EscapeString(c.Caption))
	fmt.Fprintf(&b, `<text x="%d" y="16" class="t">%s</text>`, padL, html.EscapeString(c.Title))
	for _, v := range ticks(y0, y1) { // gridlines, labelled
		fmt.Fprintf(&b, `<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>`, padL, padL+plotW, py(v), py(v))
		fmt.Fprintf(&b, `<text x="%d" y="%.1f" class="a" text-anchor="end">%s</text>`, padL-4, py(v)+4, num(v))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#bbb"/>`, padL, padT, plotW, plotH)
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="a">%s</text>`, padL, chartH-18, num(x0))
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="a" text-anchor="end">%s</text>`, chartW-padR, chartH-18, num(x1))
	fmt.Fprintf(&b, `<text x="%d" y="%d" class="a" text-anchor="middle">%s</text>`, padL+plotW/2, chartH-18, html.EscapeString(c.XLabel))
	points := func(x, y []float64) string {
		var p strings.Builder
		for j := range x {
			fmt.Fprintf(&p, "%.1f,%.1f ", px(x[j]), py(y[j]))
		}
		return strings.TrimSpace(p.String())
	}
	for i := range c.Series {
		s := &c.Series[i]
		x := xs(s)
		if len(x) == 0 {
			continue
		}
		run := ""
		if s.Run != "" {
			run = ` data-run="` + html.EscapeString(s.Run) + `"`
		}
		fmt.Fprintf(&b, `<g class="s"%s>`, run)
		if s.Band != nil {
			b.WriteString(`<polygon fill="` + s.Color + `" fill-opacity="0.15" stroke="none" points="`)
			for j := range x {
				fmt.Fprintf(&b, "%.1f,%.1f ", px(x[j]), py(s.Band[1][j]))
			}
			for j := len(x) - 1; j >= 0; j-- {
				fmt.Fprintf(&b, "%.1f,%.1f ", px(x[j]), py(s.Band[0][j]))
			}
			b.WriteString(`"/>`)
		}
		last := len(x) - 1
		y := s.Y
		if c.Smooth {
			data.S = append(data.S, seriesData{X: jsonNums(x), Y: jsonNums(s.Y)})
			if !c.NoRaw {
				fmt.Fprintf(&b, `<polyline class="raw" fill="none" stroke="%s" stroke-opacity="0.25" stroke-width="1" points="%s"/>`, s.Color, points(x, s.Y))
			}
			y = ema(s.Y, DefaultSmoothing)
			fmt.Fprintf(&b, `<polyline class="sm" data-s="%d" fill="none" stroke="%s" stroke-width="1.8" points="%s">`, len(data.S)-1, s.Color, points(x, y))
			fmt.Fprintf(&b, `<title>%s: %s at %s %s (last, raw)</title></polyline>`, html.EscapeString(s.Name), num(s.Y[last]), html.EscapeString(c.XLabel), num(x[last]))
		} else {
			fmt.Fprintf(&b, `<polyline fill="none" stroke="%s" stroke-width="1.5" points="%s">`, s.Color, points(x, y))
			fmt.Fprintf(&b, `<title>%s: %s at %s %s (last)</title></polyline>`, html.EscapeString(s.Name), num(s.Y[last]), html.EscapeString(c.XLabel), num(x[last]))
		}
		if len(x) <= pointsWithMarks && !c.Smooth {
			for j := range x {
				fmt.Fprintf(&b, `<circle class="pt" cx="%.1f" cy="%.1f" r="3" fill="%s" data-x="%s" data-y="%s"><title>%s: %s at %s %s</title></circle>`,
					px(x[j]), py(s.Y[j]), s.Color, strconv.FormatFloat(x[j], 'g', -1, 64), strconv.FormatFloat(s.Y[j], 'g', -1, 64),
					html.EscapeString(s.Name), num(s.Y[j]), html.EscapeString(c.XLabel), num(x[j]))
			}
		}
		b.WriteString(`</g>`)
		if c.Legend {
			fmt.Fprintf(&b, `<text x="%d" y="%d" class="a" fill="%s">%s</text>`, padL+8+i*100, chartH-4, s.Color, html.EscapeString(s.Name))
		}
	}
	fmt.Fprintf(&b, `</svg><figcaption>%s</figcaption></figure>`, html.EscapeString(c.Caption))
	if !c.Smooth {
		data = nil
	}
	return template.HTML(b.String()), data // numbers, fixed colours and escaped names only
}
