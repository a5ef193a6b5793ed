// Package correctness measures how well each feature of the featurizer
// (metapolicy.Featurize) tells an agent's right answer from a wrong one:
// the AUC of its value over every decision of the episodes tallied (Tally),
// read back or played, without replaying anything. The simulator's
// calibration (env/sim/calibrate) compares real and simulated debates with
// it; study/signals walks decisions the same way (EachDecision) for its
// targets that need a replay, so both report the same features of the
// same decisions. It lives beside stats, below the environments and the
// study, so that the calibration depends on no study.
package correctness

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats"
)

// FeatureSignal is how well one feature tells whether an agent's current answer
// is right: the area under the ROC curve of the feature's value as a
// score for "the answer is the gold", over every decision of the episodes
// tallied. 0.5 is no signal; 1 (or 0) a perfect one, high (or low) values
// meaning right. Constant features have AUC 0.5.
type FeatureSignal struct {
	Feature string  `json:"feature"`
	AUC     float64 `json:"auc"`
}

// Tally accumulates decisions for Signals: study/signals' target correct
// over the current featurizer's features, on all decisions,
// without replaying anything, so that it runs on any episodes (a
// simulator's, transcripts read back). The zero value is ready.
// It keeps one value per feature and decision: memory grows with the
// decisions tallied (26 numbers each).
type Tally struct {
	values    [metapolicy.FeatureWidth][]float32
	labels    []bool
	positives int
}

// Add tallies every decision of ep (rounds t ≥ 1, each agent): the
// features of what the agent observed (ep.Observation) and whether its
// current answer, the one of round t−1, is the gold. An episode without a
// gold is skipped.
func (s *Tally) Add(ep *data.Episode) error {
	if ep.Gold == "" {
		return nil
	}
	f := make([]float64, metapolicy.FeatureWidth)
	return EachDecision(ep, f, func(_, i int, obs *metapolicy.Observation) error {
		for k, v := range f {
			s.values[k] = append(s.values[k], float32(v))
		}
		right := obs.Agents[i].Answer == ep.Gold
		s.labels = append(s.labels, right)
		if right {
			s.positives++
		}
		return nil
	})
}

// Decisions is the number of decisions tallied.
func (s *Tally) Decisions() int { return len(s.labels) }

// Signals returns every feature's AUC, in layout order. With no right or
// no wrong answer among the decisions every AUC is 0.5; a feature with a NaN
// value has AUC NaN.
func (s *Tally) Signals() []FeatureSignal {
	out := make([]FeatureSignal, metapolicy.FeatureWidth)
	for k := range out {
		out[k] = FeatureSignal{Feature: metapolicy.FeatureName(k), AUC: auc(s.values[k], s.labels, s.positives)}
	}
	return out
}

// auc is stats.AUC of a feature's values, with this package's convention
// for decisions that are all right or all wrong: 0.5 (no signal).
func auc(v []float32, label []bool, pos int) float64 {
	if pos == 0 || pos == len(label) {
		return 0.5
	}
	return stats.AUC(v, label)
}

// WriteTable writes one or more signal columns side by side: a header
// with the column names, then one row per feature.
func WriteTable(w io.Writer, names []string, cols ...[]FeatureSignal) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "feature")
	for _, n := range names {
		fmt.Fprintf(tw, "\tAUC %s", n)
	}
	fmt.Fprintln(tw)
	if len(cols) > 0 {
		for k := range cols[0] {
			fmt.Fprint(tw, cols[0][k].Feature)
			for _, c := range cols {
				fmt.Fprintf(tw, "\t%.3f", c[k].AUC)
			}
			fmt.Fprintln(tw)
		}
	}
	return tw.Flush()
}

// EachDecision calls fn for every decision of ep — agent i choosing its
// action of round t ≥ 1 from obs, what it observed — with v (of
// metapolicy.FeatureWidth) holding obs featurized. Tally and
// study/signals' Measure both walk episodes with it: one path from
// decisions to features. (Its errors keep the "signals:" prefix they had
// when it was study/signals'.)
func EachDecision(ep *data.Episode, v []float64, fn func(t, i int, obs *metapolicy.Observation) error) error {
	for t := 1; t < len(ep.Rounds); t++ {
		for i := range ep.Agents {
			obs := ep.Observation(t, i)
			if err := metapolicy.Featurize(v, &obs); err != nil {
				return fmt.Errorf("signals: episode %s: round %d: agent %d: %w", ep.ID, t, i, err)
			}
			if err := fn(t, i, &obs); err != nil {
				return err
			}
		}
	}
	return nil
}
