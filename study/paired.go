package study

import (
	"cmp"
	"slices"

	"github.com/mpdf/mpdf/stats"
)

// Paired differences of two policies of one study, by name: what an
// ablation (study/ablate) compares its settings with.

// PairedDelta is "policy a − policy b" in accuracy over the task × seed
// rows both have scored, with the study's bootstrap by question (as
// Summarise's Diffs), and the mean difference of tokens per task; nil
// when they share no scored row.
func (s *Study) PairedDelta(a, b string) (*stats.Interval, float64, error) {
	unit, _ := s.units()
	return s.pairedDiff(s.pairedRows(a, b), unit)
}

// PairedTokens is "a − b" in tokens per task over the task × seed rows
// both played, with the study's bootstrap by question.
func (s *Study) PairedTokens(a, b string) (*stats.Interval, error) {
	pairs := s.pairedRows(a, b)
	if len(pairs) == 0 {
		return nil, nil
	}
	unit, _ := s.units()
	var x, y []float64
	var cl []int
	for _, p := range pairs {
		x = append(x, float64(p[0].Tokens)/float64(max(1, p[0].Episodes)))
		y = append(y, float64(p[1].Tokens)/float64(max(1, p[1].Episodes)))
		cl = append(cl, unit[p[0].Index])
	}
	iv, err := s.Config.Bootstrap.PairedDiff(x, y, cl)
	if err != nil {
		return nil, err
	}
	return &iv, nil
}

// pairedRows pairs policy a's rows with policy b's of the same task and
// seed, in task then seed order (as Summarise numbers its clusters).
func (s *Study) pairedRows(a, b string) [][2]*ResultRow {
	type key struct {
		seed uint64
		task int
	}
	bRows := map[key]*ResultRow{}
	for i := range s.Rows {
		if r := &s.Rows[i]; r.Policy == b {
			bRows[key{r.Seed, r.Index}] = r
		}
	}
	var pairs [][2]*ResultRow
	for i := range s.Rows {
		if ra := &s.Rows[i]; ra.Policy == a {
			if rb, ok := bRows[key{ra.Seed, ra.Index}]; ok {
				pairs = append(pairs, [2]*ResultRow{ra, rb})
			}
		}
	}
	slices.SortStableFunc(pairs, func(p, q [2]*ResultRow) int {
		return cmp.Or(cmp.Compare(p[0].Index, q[0].Index), cmp.Compare(p[0].Seed, q[0].Seed))
	})
	return pairs
}
