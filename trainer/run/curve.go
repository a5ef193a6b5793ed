package run

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// curve is the history of a few metrics over optimiser steps.
type curve struct {
	step                     []float64
	reward, kl, entropy      []float64
	persist, refine, concede []float64
}

// curveOf is the curve of a run's history; skipped steps are left out.
func curveOf(history []StepLine) *curve {
	c := &curve{}
	for _, s := range history {
		if s.Skipped == "" {
			m := &s.Metrics
			c.add(s.Step, m.Reward, m.KL, m.Entropy, m.ActPersist, m.ActRefine, m.ActConcede)
		}
	}
	return c
}

func (c *curve) len() int { return len(c.step) }

func (c *curve) add(step int64, reward, kl, entropy, persist, refine, concede float64) {
	c.step = append(c.step, float64(step))
	c.reward = append(c.reward, reward)
	c.kl = append(c.kl, kl)
	c.entropy = append(c.entropy, entropy)
	c.persist = append(c.persist, persist)
	c.refine = append(c.refine, refine)
	c.concede = append(c.concede, concede)
}

func (c *curve) xy(ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(ys))
	for i, y := range ys {
		pts[i].X, pts[i].Y = c.step[i], y
	}
	return pts
}

// writePNG draws the training curves (reward, KL to the reference, entropy,
// action shares over steps) as a 2×2 grid into path.
func (c *curve) writePNG(path string) error {
	if len(c.step) == 0 {
		return fmt.Errorf("no steps to plot")
	}
	panels := []struct {
		title  string
		names  []string
		series [][]float64
	}{
		{"reward (mean per decision)", []string{"reward"}, [][]float64{c.reward}},
		{"KL(π ‖ π_ref)", []string{"kl"}, [][]float64{c.kl}},
		{"entropy of π", []string{"entropy"}, [][]float64{c.entropy}},
		{"action shares", []string{"persist", "refine", "concede"}, [][]float64{c.persist, c.refine, c.concede}},
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
	var buf bytes.Buffer
	if _, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(&buf); err != nil {
		return err
	}
	return writeAtomic(path, buf.Bytes())
}
