package plots

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Band is one series over repeated runs (seeds): at each X its median,
// its inner range [Q1, Q3] and its full range [Min, Max]; every slice has
// the length of X.
type Band struct {
	Name                     string
	X                        []float64
	Median, Q1, Q3, Min, Max []float64
}

// WriteBands draws bands into w as a PNG of one panel per band, side by
// side on one accuracy scale, under title: each band's median as a line,
// its [Q1, Q3] as a shaded area and [Min, Max] as a paler one.
func WriteBands(w io.Writer, title, xLabel, yLabel string, bands []Band) error {
	if len(bands) == 0 {
		return errors.New("plots: no band to plot")
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, b := range bands {
		n := len(b.X)
		if n == 0 {
			return fmt.Errorf("plots: band %q has no point", b.Name)
		}
		for _, s := range [][]float64{b.Median, b.Q1, b.Q3, b.Min, b.Max} {
			if len(s) != n {
				return fmt.Errorf("plots: band %q: a series of %d values for %d points", b.Name, len(s), n)
			}
		}
		for _, s := range [][]float64{b.X, b.Median, b.Q1, b.Q3, b.Min, b.Max} {
			for _, v := range s {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					return fmt.Errorf("plots: band %q: a value %v", b.Name, v)
				}
			}
		}
		for i := range n {
			if !(b.Min[i] <= b.Q1[i] && b.Q1[i] <= b.Median[i] && b.Median[i] <= b.Q3[i] && b.Q3[i] <= b.Max[i]) {
				return fmt.Errorf("plots: band %q at %v: min %v, Q1 %v, median %v, Q3 %v, max %v are not in order",
					b.Name, b.X[i], b.Min[i], b.Q1[i], b.Median[i], b.Q3[i], b.Max[i])
			}
			lo, hi = min(lo, b.Min[i]), max(hi, b.Max[i])
		}
	}
	pad := max((hi-lo)*0.05, 0.005)
	const panelW, height, top = 300, 300, 22
	img := vgimg.New(vg.Points(float64(panelW*len(bands))), vg.Points(height))
	dc := draw.New(img)
	ts := draw.TextStyle{Color: color.Black, Font: font.From(plot.DefaultFont, vg.Points(12)), XAlign: draw.XCenter, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	dc.FillText(ts, vg.Point{X: dc.Max.X / 2, Y: dc.Max.Y - vg.Points(4)}, title)
	body := draw.Crop(dc, 0, 0, 0, -vg.Points(top))
	tiles := draw.Tiles{Rows: 1, Cols: len(bands), PadX: vg.Millimeter * 3, PadTop: vg.Millimeter, PadBottom: vg.Millimeter * 2,
		PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	for k, b := range bands {
		p := plot.New()
		p.Title.Text = b.Name
		p.X.Label.Text = xLabel
		if k == 0 {
			p.Y.Label.Text = yLabel
		}
		p.Y.Min, p.Y.Max = lo-pad, hi+pad
		c := plotutil.Color(k)
		for _, a := range []struct {
			lo, hi []float64
			alpha  uint8
		}{{b.Min, b.Max, 0x30}, {b.Q1, b.Q3, 0x70}} {
			poly, err := area(b.X, a.lo, a.hi, c, a.alpha)
			if err != nil {
				return err
			}
			p.Add(poly)
		}
		pts := make(plotter.XYs, len(b.X))
		for i := range b.X {
			pts[i].X, pts[i].Y = b.X[i], b.Median[i]
		}
		line, err := plotter.NewLine(pts)
		if err != nil {
			return err
		}
		line.Color = c
		line.Width = vg.Points(1.5)
		p.Add(line, plotter.NewGrid())
		p.Draw(tiles.At(body, k, 0))
	}
	_, err := (vgimg.PngCanvas{Canvas: img}).WriteTo(w)
	return err
}

// area is the polygon between lo and hi over x in colour c at alpha.
func area(x, lo, hi []float64, c color.Color, alpha uint8) (*plotter.Polygon, error) {
	pts := make(plotter.XYs, 0, 2*len(x))
	for i := range x {
		pts = append(pts, plotter.XY{X: x[i], Y: hi[i]})
	}
	for i := len(x) - 1; i >= 0; i-- {
		pts = append(pts, plotter.XY{X: x[i], Y: lo[i]})
	}
	poly, err := plotter.NewPolygon(pts)
	if err != nil {
		return nil, err
	}
	r, g, b, _ := c.RGBA()
	poly.Color = color.NRGBA{R: uint8(r >> 8), G: uint8(g >> 8), B: uint8(b >> 8), A: alpha}
	poly.LineStyle.Width = 0
	return poly, nil
}
