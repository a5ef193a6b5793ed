package plots

import (
	"math"
	"slices"
)

// Label placement for a scatter chart whose points carry names (a study's
// accuracy-against-tokens plane): each label goes to the nearest free spot
// around its point, free meaning it overlaps no other label and stays in
// the chart; one put away from its point gets a leader line. The search is
// a fixed list of candidate spots tried in order of distance, so the same
// points give the same layout, byte for byte.

// Box is a rectangle in a figure's units, y growing downwards (SVG's and
// the screen's convention).
type Box struct{ X0, Y0, X1, Y1 float64 }

// Overlaps says b and c share area (touching edges do not).
func (b Box) Overlaps(c Box) bool {
	return b.X0 < c.X1 && c.X0 < b.X1 && b.Y0 < c.Y1 && c.Y0 < b.Y1
}

// Within says b lies inside c.
func (b Box) Within(c Box) bool {
	return b.X0 >= c.X0 && b.X1 <= c.X1 && b.Y0 >= c.Y0 && b.Y1 <= c.Y1
}

// overlap is the area b and c share.
func (b Box) overlap(c Box) float64 {
	w := min(b.X1, c.X1) - max(b.X0, c.X0)
	h := min(b.Y1, c.Y1) - max(b.Y0, c.Y0)
	if w <= 0 || h <= 0 {
		return 0
	}
	return w * h
}

// A Label is a point's name to place: the point at (X, Y), the text's
// box W × H.
type Label struct {
	X, Y, W, H float64
}

// A Placed is where a label went: its box, and whether it sits away from
// its point (then a leader line joins them, from the point to Anchor, the
// nearest point of the box).
type Placed struct {
	Box    Box
	Leader bool
	Anchor struct{ X, Y float64 }
}

// Placement's distances, in the figure's units: Gap between a point and
// its label's nearest edge, Step between candidate rows and columns,
// Rings how many steps away a label may go before it gives up on a free
// spot (and takes the one that overlaps least). LineCost is what a unit
// of distance from the point costs against a unit of area over a line:
// at 1, a label moves up to 26 units rather than cross a 2-unit bar with
// its 13-unit height.
type Placement struct {
	Gap, Step float64
	Rings     int
	LineCost  float64
}

// DefaultPlacement suits 11-pixel labels on a chart a few hundred pixels
// across.
var DefaultPlacement = Placement{Gap: 7, Step: 7, Rings: 12, LineCost: 1}

// Place puts each label beside its point, the labels in order: each takes
// the nearest candidate spot inside bounds that overlaps no label placed
// before it and no marker (the points' own boxes, which a label should not
// hide), crossing lines (the points' interval bars) only where going round
// them would take it further than LineCost allows; when no spot is free,
// the one that overlaps least. Markers and lines are obstacles, not
// placed. Place is deterministic.
func (o Placement) Place(labels []Label, markers, lines []Box, bounds Box) []Placed {
	out := make([]Placed, len(labels))
	var placed []Box
	for i, l := range labels {
		cands := o.candidates(l)
		best, bestCost := -1, math.Inf(1)
		for k, c := range cands {
			if o.LineCost*c.dist >= bestCost {
				break // the rest are further: none can cost less
			}
			b := c.box
			if !b.Within(bounds) {
				continue
			}
			// Labels weigh most, then markers, each above the next's
			// worst; a line crossed costs its area, traded against
			// distance.
			cost := o.LineCost * c.dist
			for _, p := range placed {
				cost += 1e8 * b.overlap(p)
			}
			for _, m := range markers {
				cost += 1e5 * b.overlap(m)
			}
			for _, ln := range lines {
				cost += b.overlap(ln)
			}
			if cost < bestCost {
				best, bestCost = k, cost
			}
		}
		if best < 0 { // no candidate inside bounds: the first, clamped
			best = 0
			cands[0].box = clamp(cands[0].box, bounds)
		}
		c := cands[best]
		out[i] = Placed{Box: c.box, Leader: c.far}
		out[i].Anchor.X = math.Max(c.box.X0, math.Min(l.X, c.box.X1))
		out[i].Anchor.Y = math.Max(c.box.Y0, math.Min(l.Y, c.box.Y1))
		placed = append(placed, c.box)
	}
	return out
}

type candidate struct {
	box  Box
	dist float64
	far  bool // beyond the first ring: needs a leader line
}

// candidates are the spots around l, nearest first: right, left, above
// and below of the point at the gap (the first ring), then on rings a
// step further out, each ring's spots sliding along its sides.
func (o Placement) candidates(l Label) []candidate {
	var cs []candidate
	add := func(x0, y0 float64, ring int) {
		b := Box{x0, y0, x0 + l.W, y0 + l.H}
		dx := math.Max(0, math.Max(b.X0-l.X, l.X-b.X1))
		dy := math.Max(0, math.Max(b.Y0-l.Y, l.Y-b.Y1))
		cs = append(cs, candidate{box: b, dist: math.Hypot(dx, dy), far: ring > 0})
	}
	for ring := 0; ring <= o.Rings; ring++ {
		g := o.Gap + float64(ring)*o.Step
		// Right and left of the point, the text's middle at the
		// point's height, then shifted up and down by steps; above and
		// below, the text starting at, centred on or ending at the point.
		for s := 0; s <= ring+1; s++ {
			for _, sign := range []float64{-1, 1} {
				if s == 0 && sign > 0 {
					continue
				}
				dy := sign * float64(s) * o.Step
				add(l.X+g, l.Y-l.H/2+dy, ring)
				add(l.X-g-l.W, l.Y-l.H/2+dy, ring)
			}
		}
		for _, x0 := range []float64{l.X + 2, l.X - l.W/2, l.X - l.W - 2} {
			add(x0, l.Y-g-l.H, ring)
			add(x0, l.Y+g, ring)
		}
	}
	// Nearest first; ties keep the order above (right before left, up
	// before down).
	slices.SortStableFunc(cs, func(a, b candidate) int {
		switch {
		case a.dist < b.dist:
			return -1
		case a.dist > b.dist:
			return 1
		}
		return 0
	})
	return cs
}

// clamp moves b inside bounds (as far as it fits).
func clamp(b Box, bounds Box) Box {
	w, h := b.X1-b.X0, b.Y1-b.Y0
	b.X0 = math.Max(bounds.X0, math.Min(b.X0, bounds.X1-w))
	b.Y0 = math.Max(bounds.Y0, math.Min(b.Y0, bounds.Y1-h))
	b.X1, b.Y1 = b.X0+w, b.Y0+h
	return b
}
