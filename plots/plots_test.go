package plots

import (
	"bytes"
	"image/png"
	"io"
	"math"
	"strings"
	"testing"
)

func curves(n int) *Curves {
	c := &Curves{}
	for i := range n {
		f := float64(i)
		c.Add(int64(i+1), f/10, f/100, 1-f/50, 0.2+f/100, 0.7-f/100, 0.1)
	}
	return c
}

// Both figures decode as PNGs of the documented size, and the same
// numbers give the same bytes.
func TestFiguresArePNGsAndDeterministic(t *testing.T) {
	pts := []Point{
		{Name: "majority", Tokens: 1456, Accuracy: 0.599, Low: 0.573, High: 0.625},
		{Name: "debate", Tokens: 8218, Accuracy: 0.604, Low: 0.577, High: 0.630},
		{Name: "mpdf λ=0", Tokens: 3762, Accuracy: 0.612, Low: 0.586, High: 0.638, Learned: true},
		{Name: "mpdf λ=0.1", Tokens: 1461, Accuracy: 0.598, Low: 0.572, High: 0.623, Learned: true},
	}
	for _, tc := range []struct {
		name string
		draw func(*bytes.Buffer) error
		w, h int
	}{
		{"curves", func(b *bytes.Buffer) error { return WriteCurves(b, curves(40)) }, 900, 600},
		{"pareto", func(b *bytes.Buffer) error { return WritePareto(b, "test", pts) }, 800, 560},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := tc.draw(&a); err != nil {
				t.Fatal(err)
			}
			if err := tc.draw(&b); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Error("the same numbers drew different bytes")
			}
			img, err := png.Decode(&a)
			if err != nil {
				t.Fatal(err)
			}
			// vgimg draws at 96 dpi by default: points × 96/72.
			px := func(pt int) int { return int(math.Round(float64(pt) * 96 / 72)) }
			if got := img.Bounds().Size(); got.X != px(tc.w) || got.Y != px(tc.h) {
				t.Errorf("size %v, want %dx%d points at 96 dpi", got, tc.w, tc.h)
			}
		})
	}
}

func TestCurvesRefusesBadInput(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteCurves(&buf, &Curves{}); err == nil || !strings.Contains(err.Error(), "no steps") {
		t.Errorf("empty curves: %v", err)
	}
	c := curves(3)
	c.KL = c.KL[:2]
	if err := WriteCurves(&buf, c); err == nil || !strings.Contains(err.Error(), "2 values for 3 steps") {
		t.Errorf("ragged curves: %v", err)
	}
}

func bands() []Band {
	return []Band{
		{Name: "a", X: []float64{0, 5, 10}, Median: []float64{0.5, 0.55, 0.6}, Q1: []float64{0.48, 0.5, 0.55}, Q3: []float64{0.52, 0.6, 0.62}, Min: []float64{0.45, 0.4, 0.5}, Max: []float64{0.55, 0.7, 0.7}},
		{Name: "b", X: []float64{0, 5, 10}, Median: []float64{0.5, 0.5, 0.5}, Q1: []float64{0.5, 0.5, 0.5}, Q3: []float64{0.5, 0.5, 0.5}, Min: []float64{0.5, 0.5, 0.5}, Max: []float64{0.5, 0.5, 0.5}},
	}
}

// The band figure is a PNG of one 300-point panel per band, and the same
// numbers give the same bytes.
func TestBandsArePNGsAndDeterministic(t *testing.T) {
	var a, b bytes.Buffer
	if err := WriteBands(&a, "title", "x", "y", bands()); err != nil {
		t.Fatal(err)
	}
	if err := WriteBands(&b, "title", "x", "y", bands()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same numbers drew different bytes")
	}
	img, err := png.Decode(&a)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Size(); got.X != 800 || got.Y != 400 {
		t.Errorf("size %v, want 800x400 (2 panels of 300×300 points at 96 dpi)", got)
	}
}

func TestBandsRefuseBadInput(t *testing.T) {
	for name, edit := range map[string]func([]Band) []Band{
		"none":         func([]Band) []Band { return nil },
		"no point":     func(b []Band) []Band { b[0] = Band{Name: "a"}; return b },
		"short series": func(b []Band) []Band { b[0].Q3 = b[0].Q3[:2]; return b },
		"NaN":          func(b []Band) []Band { b[1].Median[0] = math.NaN(); return b },
		"out of order": func(b []Band) []Band { b[0].Median[1] = 0.9; return b },
	} {
		if err := WriteBands(io.Discard, "t", "x", "y", edit(bands())); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}
