package plots

import (
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
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
// policies as a red line through their sweep, in the order given.
func WritePareto(w io.Writer, title string, pts []Point) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "tokens per task"
	p.Y.Label.Text = "team accuracy"
	var fixed, learned points
	var fixedNames, learnedNames []string
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
	add := func(pts points, names []string, c color.Color, line bool) error {
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
		labels, err := plotter.NewLabels(plotter.XYLabels{XYs: pts.XYs, Labels: names})
		if err != nil {
			return err
		}
		for i := range labels.TextStyle {
			labels.TextStyle[i].Color = c
		}
		labels.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
		p.Add(s, bars, labels)
		return nil
	}
	if err := add(fixed, fixedNames, color.RGBA{R: 90, G: 90, B: 90, A: 255}, false); err != nil {
		return err
	}
	if err := add(learned, learnedNames, color.RGBA{R: 200, G: 40, B: 40, A: 255}, true); err != nil {
		return err
	}
	p.Legend.Top = true
	p.Legend.Left = true
	img := vgimg.New(vg.Points(800), vg.Points(560))
	p.Draw(draw.New(img))
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}
