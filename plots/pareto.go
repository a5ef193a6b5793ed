package plots

import (
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Point is one policy in the accuracy-against-tokens plane, with the
// interval [Low, High] of its accuracy.
type Point struct {
	Name                string
	Tokens              float64
	Accuracy, Low, High float64
	Learned             bool // a learned policy: joined by a line, in sweep order
}

// points are points with a vertical interval each.
type points struct {
	plotter.XYs
	plotter.YErrors
}

// WritePareto draws accuracy (with its interval) against tokens per task
// as a PNG into w: fixed protocols as labelled grey points, learned
// policies as a red line through their sweep, in the order given; the
// labels placed apart (Placement).
func WritePareto(w io.Writer, title string, pts []Point) error {
	img, _, err := drawPareto(title, pts)
	if err != nil {
		return err
	}
	_, err = vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

// drawPareto draws WritePareto's figure, and says where its labels went.
func drawPareto(title string, pts []Point) (*vgimg.Canvas, *placedLabels, error) {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "tokens per task"
	p.Y.Label.Text = "team accuracy"
	var fixed, learned points
	var fixedNames, learnedNames []string
	names := &placedLabels{}
	for _, pt := range pts {
		xy := plotter.XY{X: pt.Tokens, Y: pt.Accuracy}
		e := struct{ Low, High float64 }{pt.Accuracy - pt.Low, pt.High - pt.Accuracy}
		if pt.Learned {
			learned.XYs = append(learned.XYs, xy)
			learned.YErrors = append(learned.YErrors, e)
			learnedNames = append(learnedNames, pt.Name)
		} else {
			fixed.XYs = append(fixed.XYs, xy)
			fixed.YErrors = append(fixed.YErrors, e)
			fixedNames = append(fixedNames, pt.Name)
		}
	}
	add := func(pts points, ns []string, c color.Color, line bool) error {
		if len(pts.XYs) == 0 {
			return nil
		}
		if line {
			l, err := plotter.NewLine(pts.XYs)
			if err != nil {
				return err
			}
			l.Color = c
			p.Add(l)
			p.Legend.Add("learned (λ sweep)", l)
		}
		s, err := plotter.NewScatter(pts.XYs)
		if err != nil {
			return err
		}
		s.Color = c
		s.Shape = draw.CircleGlyph{}
		if !line {
			p.Legend.Add("fixed protocols, oracle", s)
		}
		bars, err := plotter.NewYErrorBars(pts)
		if err != nil {
			return err
		}
		bars.Color = c
		p.Add(s, bars)
		for i, n := range ns {
			names.add(pts.XYs[i], pts.YErrors[i], n, c)
		}
		return nil
	}
	if err := add(fixed, fixedNames, color.RGBA{R: 90, G: 90, B: 90, A: 255}, false); err != nil {
		return nil, nil, err
	}
	if err := add(learned, learnedNames, color.RGBA{R: 200, G: 40, B: 40, A: 255}, true); err != nil {
		return nil, nil, err
	}
	p.Add(names)
	p.Legend.Top = true
	p.Legend.Left = true
	img := vgimg.New(vg.Points(800), vg.Points(560))
	p.Draw(draw.New(img))
	return img, names, nil
}

// placedLabels draws the points' names where Placement puts them, in the
// plot's data area (the legend's corner left out), with leader lines.
type placedLabels struct {
	xys    []plotter.XY
	errs   []struct{ Low, High float64 }
	names  []string
	colors []color.Color
	// placed and bounds are where the last Plot put the labels, in its
	// placement's units (y downwards), for a test.
	placed []Placed
	bounds Box
}

func (l *placedLabels) add(xy plotter.XY, e struct{ Low, High float64 }, name string, c color.Color) {
	l.xys, l.errs, l.names, l.colors = append(l.xys, xy), append(l.errs, e), append(l.names, name), append(l.colors, c)
}

// paretoPlacement is Placement in points (1/72 inch) for the figure's
// 10-point labels.
var paretoPlacement = Placement{Gap: 5, Step: 5, Rings: 14, LineCost: 1}

// Plot implements plot.Plotter. Boxes are placed with y growing
// downwards, as Placement expects: the canvas's y negated.
func (l *placedLabels) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := text.Style{Font: font.From(plotter.DefaultFont, plotter.DefaultFontSize), Handler: plot.DefaultTextHandler}
	const pad = 1
	r := plotter.DefaultGlyphStyle.Radius + 1
	var ls []Label
	var markers, lines []Box
	rects := make([]vg.Rectangle, len(l.names))
	for i, xy := range l.xys {
		x, y := float64(trX(xy.X)), -float64(trY(xy.Y))
		rects[i] = sty.Rectangle(l.names[i])
		ls = append(ls, Label{X: x, Y: y, W: float64(rects[i].Max.X-rects[i].Min.X) + 2*pad, H: float64(rects[i].Max.Y-rects[i].Min.Y) + 2*pad})
		markers = append(markers, Box{x - float64(r), y - float64(r), x + float64(r), y + float64(r)})
		lines = append(lines, Box{x - 1, -float64(trY(xy.Y + l.errs[i].High)), x + 1, -float64(trY(xy.Y - l.errs[i].Low))})
	}
	// The legend sits in the top left corner: an obstacle like a point.
	legend := Box{float64(c.Min.X), -float64(c.Max.Y), float64(c.Min.X) + 140, -float64(c.Max.Y) + 30}
	markers = append(markers, legend)
	bounds := Box{float64(c.Min.X), -float64(c.Max.Y), float64(c.Max.X), -float64(c.Min.Y)}
	l.placed, l.bounds = paretoPlacement.Place(ls, markers, lines, bounds), bounds
	for i, pl := range l.placed {
		sty.Color = l.colors[i]
		if pl.Leader {
			// From the marker's edge to the box.
			dx, dy := pl.Anchor.X-ls[i].X, pl.Anchor.Y-ls[i].Y
			if d := math.Hypot(dx, dy); d > float64(r) {
				x0, y0 := ls[i].X+dx/d*float64(r), ls[i].Y+dy/d*float64(r)
				c.StrokeLine2(draw.LineStyle{Color: l.colors[i], Width: vg.Points(0.5)},
					vg.Length(x0), vg.Length(-y0), vg.Length(pl.Anchor.X), vg.Length(-pl.Anchor.Y))
			}
		}
		at := vg.Point{X: vg.Length(pl.Box.X0+pad) - rects[i].Min.X, Y: vg.Length(-pl.Box.Y1+pad) - rects[i].Min.Y}
		c.FillText(sty, at, l.names[i])
	}
}
