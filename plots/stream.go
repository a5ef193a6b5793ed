package plots

// DefaultMaxPoints is the points per series a Stream keeps by default:
// enough for a 900-point-wide figure, few enough that drawing costs
// milliseconds whatever the run's length.
const DefaultMaxPoints = 2000

// nSeries is the number of series of Curves: reward, KL, entropy and the
// three action shares.
const nSeries = 6

// Stream builds Curves one step at a time in memory bounded by its
// maximum: each point is a bucket of consecutive steps holding their
// mean, min and max. When the buckets pass the maximum, neighbours merge
// pairwise and later buckets hold twice as many steps, so a run of any
// length keeps between Max/2 and Max points. The buckets depend only on
// the sequence of steps added: the same steps give the same curve.
type Stream struct {
	// Max bounds the points per series; 0 means DefaultMaxPoints (a Max
	// under 2 is taken as 2).
	Max     int
	span    int // steps per full bucket
	buckets []bucket
}

type bucket struct {
	n       int
	sumStep float64
	sum     [nSeries]float64
	lo, hi  [nSeries]float64
}

func (b *bucket) merge(o *bucket) {
	b.n += o.n
	b.sumStep += o.sumStep
	for i := range b.sum {
		b.sum[i] += o.sum[i]
		b.lo[i] = min(b.lo[i], o.lo[i])
		b.hi[i] = max(b.hi[i], o.hi[i])
	}
}

// Add appends one step's values.
func (s *Stream) Add(step int64, reward, kl, entropy, persist, refine, concede float64) {
	v := [nSeries]float64{reward, kl, entropy, persist, refine, concede}
	one := bucket{n: 1, sumStep: float64(step), sum: v, lo: v, hi: v}
	if s.span == 0 {
		s.span = 1
	}
	if k := len(s.buckets); k > 0 && s.buckets[k-1].n < s.span {
		s.buckets[k-1].merge(&one)
		return
	}
	s.buckets = append(s.buckets, one)
	if len(s.buckets) > s.max() {
		s.halve()
	}
}

func (s *Stream) max() int {
	if s.Max == 0 {
		return DefaultMaxPoints
	}
	return max(s.Max, 2)
}

// halve merges neighbouring buckets and doubles the span.
func (s *Stream) halve() {
	k := 0
	for i := 0; i < len(s.buckets); i += 2 {
		b := s.buckets[i]
		if i+1 < len(s.buckets) {
			b.merge(&s.buckets[i+1])
		}
		s.buckets[k] = b
		k++
	}
	s.buckets = s.buckets[:k]
	s.span *= 2
}

// Len is the number of points.
func (s *Stream) Len() int { return len(s.buckets) }

// Curves returns the points: each bucket's mean step and mean values,
// with Min and Max set to the buckets' ranges once a bucket holds more
// than one step.
func (s *Stream) Curves() *Curves {
	c := &Curves{}
	banded := false
	for i := range s.buckets {
		b := &s.buckets[i]
		n := float64(b.n)
		c.Step = append(c.Step, b.sumStep/n)
		for j, dst := range c.series() {
			*dst = append(*dst, b.sum[j]/n)
		}
		banded = banded || b.n > 1
	}
	if !banded {
		return c
	}
	c.Min, c.Max = &Curves{Step: c.Step}, &Curves{Step: c.Step}
	for i := range s.buckets {
		b := &s.buckets[i]
		lo, hi := c.Min.series(), c.Max.series()
		for j := range lo {
			*lo[j] = append(*lo[j], b.lo[j])
			*hi[j] = append(*hi[j], b.hi[j])
		}
	}
	return c
}
