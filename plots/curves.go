package plots

import (
	"errors"
	"fmt"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Curves is the history of a run's metrics over optimiser steps; every
// slice has the length of Step.
type Curves struct {
	Step                     []float64
	Reward, KL, Entropy      []float64
	Persist, Refine, Concede []float64
}

// Add appends one step.
func (c *Curves) Add(step int64, reward, kl, entropy, persist, refine, concede float64) {
	c.Step = append(c.Step, float64(step))
	c.Reward = append(c.Reward, reward)
	c.KL = append(c.KL, kl)
	c.Entropy = append(c.Entropy, entropy)
	c.Persist = append(c.Persist, persist)
	c.Refine = append(c.Refine, refine)
	c.Concede = append(c.Concede, concede)
}

func (c *Curves) xy(ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(ys))
	for i, y := range ys {
		pts[i].X, pts[i].Y = c.Step[i], y
	}
	return pts
}

// WriteCurves draws the training curves (reward, KL to the reference,
// entropy, action shares over steps) as a 2×2 grid of panels into w.
func WriteCurves(w io.Writer, c *Curves) error {
	if len(c.Step) == 0 {
		return errors.New("plots: no steps to plot")
	}
	for _, s := range [][]float64{c.Reward, c.KL, c.Entropy, c.Persist, c.Refine, c.Concede} {
		if len(s) != len(c.Step) {
			return fmt.Errorf("plots: a series of %d values for %d steps", len(s), len(c.Step))
		}
	}
	panels := []struct {
		title  string
		names  []string
		series [][]float64
	}{
		{"reward (mean per decision)", []string{"reward"}, [][]float64{c.Reward}},
		{"KL(π ‖ π_ref)", []string{"kl"}, [][]float64{c.KL}},
		{"entropy of π", []string{"entropy"}, [][]float64{c.Entropy}},
		{"action shares", []string{"persist", "refine", "concede"}, [][]float64{c.Persist, c.Refine, c.Concede}},
	}
	const rows, cols = 2, 2
	img := vgimg.New(vg.Points(900), vg.Points(600))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	for i, pn := range panels {
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "step"
		var args []any
		for k, s := range pn.series {
			args = append(args, pn.names[k], c.xy(s))
		}
		if err := plotutil.AddLines(p, args...); err != nil {
			return err
		}
		if len(pn.series) > 1 {
			p.Legend.Top = true
		}
		p.Draw(tiles.At(dc, i%cols, i/cols))
	}
	_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
	return err
}
