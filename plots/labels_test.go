package plots

import (
	"fmt"
	"math"
	"reflect"
	"testing"
)

// checkPlaced fails on two labels that overlap or a label outside bounds.
func checkPlaced(t *testing.T, labels []Label, got []Placed, bounds Box) {
	t.Helper()
	for i, p := range got {
		if !p.Box.Within(bounds) {
			t.Errorf("label %d at %+v: outside the chart %+v", i, p.Box, bounds)
		}
		if w, h := p.Box.X1-p.Box.X0, p.Box.Y1-p.Box.Y0; w != labels[i].W || h != labels[i].H {
			t.Errorf("label %d is %gx%g, want its text's %gx%g", i, w, h, labels[i].W, labels[i].H)
		}
		for j := range i {
			if p.Box.Overlaps(got[j].Box) {
				t.Errorf("labels %d %+v and %d %+v overlap", j, got[j].Box, i, p.Box)
			}
		}
	}
}

// markers are 12-unit boxes around each label's point.
func markers(ls []Label) []Box {
	var ms []Box
	for _, l := range ls {
		ms = append(ms, Box{l.X - 6, l.Y - 6, l.X + 6, l.Y + 6})
	}
	return ms
}

// The study report's case: names of points a few units apart (majority on
// the learned λ=0.1 and λ=0.5, until-consensus beside gate) get boxes
// that do not overlap, inside the chart, and a label with room stays
// beside its point.
func TestPlaceCrowdedPoints(t *testing.T) {
	bounds := Box{56, 16, 570, 336}
	ls := []Label{
		{X: 70, Y: 120, W: 50, H: 13},  // majority
		{X: 70, Y: 125, W: 70, H: 13},  // λ=0.1, λ=0.5, near on top of it
		{X: 72, Y: 118, W: 100, H: 13}, // oracle, also there
		{X: 330, Y: 140, W: 95, H: 13}, // until-consensus
		{X: 338, Y: 138, W: 60, H: 13}, // gate, λ=0
		{X: 565, Y: 130, W: 45, H: 13}, // debate, at the right edge
		{X: 300, Y: 330, W: 45, H: 13}, // random, at the bottom
		{X: 200, Y: 20, W: 45, H: 13},  // at the top
		{X: 400, Y: 250, W: 45, H: 13}, // alone
	}
	got := DefaultPlacement.Place(ls, markers(ls), nil, bounds)
	checkPlaced(t, ls, got, bounds)
	if p := got[8]; p.Leader || p.Box.X0 != 400+DefaultPlacement.Gap {
		t.Errorf("a label with room: %+v, want it right of its point, no leader line", p)
	}
	for i, p := range got {
		for j, m := range markers(ls) {
			if p.Box.Overlaps(m) {
				t.Errorf("label %d %+v hides point %d", i, p.Box, j)
			}
		}
		if p.Leader {
			// The anchor is on the box, the nearest point to the label's.
			a := p.Anchor
			if a.X < p.Box.X0 || a.X > p.Box.X1 || a.Y < p.Box.Y0 || a.Y > p.Box.Y1 {
				t.Errorf("label %d: leader line ends at %+v, off its box %+v", i, a, p.Box)
			}
		}
	}
	if again := DefaultPlacement.Place(ls, markers(ls), nil, bounds); !reflect.DeepEqual(got, again) {
		t.Error("the same labels were placed differently")
	}
}

// Twenty labels on one spot still get boxes apart from each other (the
// rings reach far enough), and where nothing fits Place clamps the label
// into the chart rather than dropping it.
func TestPlacePileAndNoRoom(t *testing.T) {
	bounds := Box{0, 0, 600, 400}
	var ls []Label
	for i := range 20 {
		ls = append(ls, Label{X: 300 + float64(i%3), Y: 200, W: 40 + float64(i), H: 13})
	}
	got := DefaultPlacement.Place(ls, markers(ls), nil, bounds)
	checkPlaced(t, ls, got, bounds)
	leaders := 0
	for _, p := range got {
		if p.Leader {
			leaders++
		}
	}
	if leaders == 0 {
		t.Error("twenty labels on a spot: none has a leader line")
	}

	tiny := Box{0, 0, 30, 10}
	one := []Label{{X: 15, Y: 5, W: 50, H: 13}}
	p := DefaultPlacement.Place(one, nil, nil, tiny)[0]
	if p.Box.X0 != 0 || p.Box.Y0 != 0 || math.IsNaN(p.Box.X1) {
		t.Errorf("a label larger than the chart: %+v, want it at the chart's corner", p.Box)
	}
}

func ExamplePlacement_Place() {
	ls := []Label{{X: 100, Y: 50, W: 40, H: 12}, {X: 102, Y: 50, W: 40, H: 12}}
	for _, p := range DefaultPlacement.Place(ls, nil, nil, Box{0, 0, 300, 100}) {
		fmt.Printf("%+v leader=%v\n", p.Box, p.Leader)
	}
	// Output:
	// {X0:107 Y0:44 X1:147 Y1:56} leader=false
	// {X0:55 Y0:44 X1:95 Y1:56} leader=false
}

// The study figure's labels (pareto.png) on the numbers of the shared
// GSM8K corpus's study (mpdf study --env 'replay:…/gsm/*.json', all
// models), where majority sat on λ=0.1 and λ=0.5 and gate on λ=0: as
// drawn, no two overlap and each stays in the data area.
func TestParetoLabelsApart(t *testing.T) {
	pts := []Point{
		{Name: "majority", Tokens: 1355, Accuracy: 0.888, Low: 0.823, High: 0.950},
		{Name: "debate", Tokens: 18119, Accuracy: 0.888, Low: 0.823, High: 0.942},
		{Name: "gate", Tokens: 11317, Accuracy: 0.888, Low: 0.823, High: 0.942},
		{Name: "until-consensus", Tokens: 8793, Accuracy: 0.885, Low: 0.819, High: 0.938},
		{Name: "random", Tokens: 6240, Accuracy: 0.858, Low: 0.792, High: 0.918},
		{Name: "oracle (hindsight)", Tokens: 1671, Accuracy: 0.908, Low: 0.846, High: 0.958},
		{Name: "mpdf λ=0", Tokens: 11120, Accuracy: 0.888, Low: 0.823, High: 0.942, Learned: true},
		{Name: "mpdf λ=0.1", Tokens: 1389, Accuracy: 0.872, Low: 0.803, High: 0.933, Learned: true},
		{Name: "mpdf λ=0.5", Tokens: 1386, Accuracy: 0.872, Low: 0.803, High: 0.933, Learned: true},
	}
	_, l, err := drawPareto("test", pts)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.placed) != len(pts) {
		t.Fatalf("%d labels placed for %d points", len(l.placed), len(pts))
	}
	var ls []Label
	for i, p := range l.placed {
		ls = append(ls, Label{W: p.Box.X1 - p.Box.X0, H: p.Box.Y1 - p.Box.Y0})
		if l.names[i] == "" {
			t.Errorf("label %d has no text", i)
		}
	}
	checkPlaced(t, ls, l.placed, l.bounds)
}
