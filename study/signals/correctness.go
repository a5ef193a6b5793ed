package signals

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
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

// CorrectnessTally accumulates decisions for Signals: the target correct
// of [Measure] over the current featurizer's features, on all decisions,
// without replaying anything, so that it runs on any episodes (a
// simulator's, transcripts read back). The zero value is ready.
// It keeps one value per feature and decision: memory grows with the
// decisions tallied (26 numbers each).
type CorrectnessTally struct {
	values    [metapolicy.FeatureWidth][]float32
	labels    []bool
	positives int
}

// Add tallies every decision of ep (rounds t ≥ 1, each agent): the
// features of what the agent observed (ep.Observation) and whether its
// current answer, the one of round t−1, is the gold. An episode without a
// gold is skipped.
func (s *CorrectnessTally) Add(ep *data.Episode) error {
	if ep.Gold == "" {
		return nil
	}
	f := make([]float64, metapolicy.FeatureWidth)
	return eachDecision(ep, f, func(_, i int, obs *metapolicy.Observation) error {
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
func (s *CorrectnessTally) Decisions() int { return len(s.labels) }

// Signals returns every feature's AUC, in layout order. With no right or
// no wrong answer among the decisions every AUC is 0.5; a feature with a NaN
// value has AUC NaN.
func (s *CorrectnessTally) Signals() []FeatureSignal {
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

// WriteFeatureSignals writes one or more signal columns side by side: a header
// with the column names, then one row per feature.
func WriteFeatureSignals(w io.Writer, names []string, cols ...[]FeatureSignal) error {
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

// MeasureCorrectness plays pol on e (env.Play with opts) and returns every
// feature's signal over the decisions of its episodes: which features
// carry information about correctness in that environment, and how much.
func MeasureCorrectness(e env.Env, pol metapolicy.Policy, opts env.RunOptions) ([]FeatureSignal, int, error) {
	var s CorrectnessTally
	if err := env.Play(e, pol, opts, s.Add); err != nil {
		return nil, 0, err
	}
	return s.Signals(), s.Decisions(), nil
}

// eachDecision calls fn for every decision of ep — agent i choosing its
// action of round t ≥ 1 from obs, what it observed — with v (of
// metapolicy.FeatureWidth) holding obs featurized. The correctness tally
// and Measure both walk episodes with it: one path from decisions to
// features.
func eachDecision(ep *data.Episode, v []float64, fn func(t, i int, obs *metapolicy.Observation) error) error {
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
