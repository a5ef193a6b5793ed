package main

import (
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/mpdf/mpdf/study"
)

// paretoPoints are points with a vertical interval each.
type paretoPoints struct {
	plotter.XYs
	plotter.YErrors
}

// writePareto draws a scope's accuracy (with its 95% interval) against
// tokens per task as a PNG: the baselines and the oracle as labelled
// points, the learned policies as a line through their λ sweep.
func writePareto(w io.Writer, sc *study.Scope) error {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("accuracy vs tokens per task (%s; bars: 95%% bootstrap by question)", sc.Name)
	p.X.Label.Text = "tokens per task"
	p.Y.Label.Text = "team accuracy"
	var fixed, learned paretoPoints
	var fixedNames, learnedNames []string
	for _, ps := range sc.Policies {
		pt := plotter.XY{X: ps.TokensPerTask, Y: ps.Accuracy.Estimate}
		e := struct{ Low, High float64 }{ps.Accuracy.Estimate - ps.Accuracy.Low, ps.Accuracy.High - ps.Accuracy.Estimate}
		if ps.Lambda != nil {
			learned.XYs = append(learned.XYs, pt)
			learned.YErrors = append(learned.YErrors, e)
			learnedNames = append(learnedNames, ps.Policy)
		} else {
			fixed.XYs = append(fixed.XYs, pt)
			fixed.YErrors = append(fixed.YErrors, e)
			fixedNames = append(fixedNames, ps.Policy)
		}
	}
	add := func(pts paretoPoints, names []string, c color.Color, line bool) error {
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
			labels.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(2)}
		}
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
