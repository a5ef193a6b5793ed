package plots

import (
	"bytes"
	"context"
	"errors"
	"image/png"
	"testing"
)

// However many steps are added, a Stream keeps between Max/2 and Max
// points; each point's mean, min and max are those of the steps it holds,
// and every step is counted once.
func TestStreamIsBounded(t *testing.T) {
	for _, n := range []int{1, 7, 2000, 2001, 100_003} {
		s := Stream{}
		var total float64
		for i := range n {
			v := float64(i % 10)
			total += v
			s.Add(int64(i+1), v, -v, 1, 0.2, 0.3, 0.5)
		}
		if s.Len() > DefaultMaxPoints || (n > DefaultMaxPoints && s.Len() < DefaultMaxPoints/2) || (n <= DefaultMaxPoints && s.Len() != n) {
			t.Errorf("%d steps: %d points, want at most %d (and all of them when they fit)", n, s.Len(), DefaultMaxPoints)
		}
		steps, sum := 0, 0.0
		for _, b := range s.buckets {
			steps += b.n
			sum += b.sum[0]
			if b.lo[0] < 0 || b.hi[0] > 9 || b.lo[1] != -b.hi[0] {
				t.Fatalf("%d steps: bucket range reward [%v, %v], kl [%v, %v]", n, b.lo[0], b.hi[0], b.lo[1], b.hi[1])
			}
		}
		if steps != n || sum != total {
			t.Errorf("%d steps: buckets hold %d steps summing to %v, want %v", n, steps, sum, total)
		}
		c := s.Curves()
		if (c.Min != nil) != (n > DefaultMaxPoints) {
			t.Errorf("%d steps: band %v, want one exactly when points hold several steps", n, c.Min != nil)
		}
		if n > 1 && c.Step[len(c.Step)-1] <= c.Step[0] {
			t.Errorf("%d steps: points not in step order", n)
		}
	}
}

// A small Max halves early: 5 steps at Max 2 are buckets of 4 and 1.
func TestStreamMerges(t *testing.T) {
	s := Stream{Max: 2}
	for i := 1; i <= 5; i++ {
		s.Add(int64(i), float64(i), 0, 0, 0, 0, 0)
	}
	c := s.Curves()
	if len(c.Step) != 2 || c.Step[0] != 2.5 || c.Reward[0] != 2.5 || c.Min.Reward[0] != 1 || c.Max.Reward[0] != 4 || c.Reward[1] != 5 {
		t.Errorf("curves %+v, min %+v, max %+v", c, c.Min, c.Max)
	}
}

// A banded curve draws as a deterministic PNG; a cancelled context stops
// the drawing with its error.
func TestStreamDraws(t *testing.T) {
	s := Stream{Max: 50}
	for i := range 1000 {
		f := float64(i)
		s.Add(int64(i+1), f/100+float64(i%7)/10, f/1000, 1-f/5000, 0.3, 0.4, 0.3)
	}
	var a, b bytes.Buffer
	if err := WriteCurves(&a, s.Curves()); err != nil {
		t.Fatal(err)
	}
	if err := WriteCurves(&b, s.Curves()); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("the same stream drew different bytes")
	}
	if _, err := png.Decode(&a); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var c bytes.Buffer
	if err := WriteCurvesContext(ctx, &c, s.Curves()); !errors.Is(err, context.Canceled) || c.Len() != 0 {
		t.Errorf("cancelled: err %v, %d bytes written", err, c.Len())
	}
	bad := s.Curves()
	bad.Max.KL = bad.Max.KL[:3]
	if err := WriteCurves(&c, bad); err == nil {
		t.Error("a ragged band drew")
	}
}
