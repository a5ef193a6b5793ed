package plots

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"io"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Curves is the history of a run's metrics over optimiser steps; every
// slice has the length of Step. A long run's curves come from a Stream,
// whose points summarise buckets of steps.
type Curves struct {
	Step                     []float64
	Reward, KL, Entropy      []float64
	Persist, Refine, Concede []float64
	// Min and Max, when set, hold each point's range (the extremes of the
	// steps it summarises; their Step is ignored), drawn as a band around
	// the line.
	Min, Max *Curves
}

// series are the value slices in a fixed order: reward, KL, entropy,
// persist, refine, concede.
func (c *Curves) series() [nSeries]*[]float64 {
	return [nSeries]*[]float64{&c.Reward, &c.KL, &c.Entropy, &c.Persist, &c.Refine, &c.Concede}
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
	return WriteCurvesContext(context.Background(), w, c)
}

// WriteCurvesContext is WriteCurves that stops with ctx's error, checked
// before each panel and before the PNG is encoded.
func WriteCurvesContext(ctx context.Context, w io.Writer, c *Curves) error {
	if len(c.Step) == 0 {
		return errors.New("plots: no steps to plot")
	}
	check := []*Curves{c}
	if c.Min != nil || c.Max != nil {
		if c.Min == nil || c.Max == nil {
			return errors.New("plots: a band needs both Min and Max")
		}
		check = append(check, c.Min, c.Max)
	}
	for _, cc := range check {
		for _, s := range cc.series() {
			if len(*s) != len(c.Step) {
				return fmt.Errorf("plots: a series of %d values for %d steps", len(*s), len(c.Step))
			}
		}
	}
	panels := []struct {
		title  string
		names  []string
		series []int // indices into Curves.series
	}{
		{"reward (mean per decision)", []string{"reward"}, []int{0}},
		{"KL(π ‖ π_ref)", []string{"kl"}, []int{1}},
		{"entropy of π", []string{"entropy"}, []int{2}},
		{"action shares", []string{"persist", "refine", "concede"}, []int{3, 4, 5}},
	}
	vals := c.series()
	const rows, cols = 2, 2
	img := vgimg.New(vg.Points(900), vg.Points(600))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: rows, Cols: cols, PadX: vg.Millimeter * 4, PadY: vg.Millimeter * 4,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	for i, pn := range panels {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("plots: %w", err)
		}
		p := plot.New()
		p.Title.Text = pn.title
		p.X.Label.Text = "step"
		var args []any
		for k, j := range pn.series {
			if c.Min != nil {
				band, err := c.band(*c.Min.series()[j], *c.Max.series()[j], plotutil.Color(k))
				if err != nil {
					return err
				}
				p.Add(band)
			}
			args = append(args, pn.names[k], c.xy(*vals[j]))
		}
		if err := plotutil.AddLines(p, args...); err != nil {
			return err
		}
		if len(pn.series) > 1 {
			p.Legend.Top = true
		}
		p.Draw(tiles.At(dc, i%cols, i/cols))
	}
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
	return err
}

// band is the area between lo and hi over the steps, filled in a pale
// shade of the line's colour.
func (c *Curves) band(lo, hi []float64, line color.Color) (*plotter.Polygon, error) {
	pts := make(plotter.XYs, 0, 2*len(lo))
	for i := range hi {
		pts = append(pts, plotter.XY{X: c.Step[i], Y: hi[i]})
	}
	for i := len(lo) - 1; i >= 0; i-- {
		pts = append(pts, plotter.XY{X: c.Step[i], Y: lo[i]})
	}
	poly, err := plotter.NewPolygon(pts)
	if err != nil {
		return nil, err
	}
	r, g, b, _ := line.RGBA()
	poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: 0x40}
	poly.LineStyle.Width = 0
	return poly, nil
}
