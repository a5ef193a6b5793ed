package env

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats"
)

// Signal is how well one feature tells whether an agent's current answer
// is right: the area under the ROC curve of the feature's value as a
// score for "the answer is the gold", over every decision of the episodes
// tallied. 0.5 is no signal; 1 (or 0) a perfect one, high (or low) values
// meaning right. Constant features have AUC 0.5.
type Signal struct {
	Feature string  `json:"feature"`
	AUC     float64 `json:"auc"`
}

// SignalTally accumulates decisions for Signals. The zero value is ready.
// It keeps one value per feature and decision: memory grows with the
// decisions tallied (26 numbers each).
type SignalTally struct {
	values    [metapolicy.FeatureWidth][]float32
	labels    []bool
	positives int
}

// Add tallies every decision of ep (rounds t ≥ 1, each agent): the
// features of what the agent observed (ep.Observation) and whether its
// current answer, the one of round t−1, is the gold. An episode without a
// gold is skipped.
func (s *SignalTally) Add(ep *data.Episode) error {
	if ep.Gold == "" {
		return nil
	}
	var f [metapolicy.FeatureWidth]float64
	for t := 1; t < len(ep.Rounds); t++ {
		for i := range ep.Agents {
			obs := ep.Observation(t, i)
			if err := metapolicy.Featurize(f[:], &obs); err != nil {
				return fmt.Errorf("env: signals: episode %s: round %d: agent %d: %w", ep.ID, t, i, err)
			}
			for k, v := range f {
				s.values[k] = append(s.values[k], float32(v))
			}
			right := obs.Agents[i].Answer == ep.Gold
			s.labels = append(s.labels, right)
			if right {
				s.positives++
			}
		}
	}
	return nil
}

// Decisions is the number of decisions tallied.
func (s *SignalTally) Decisions() int { return len(s.labels) }

// Signals returns every feature's AUC, in layout order. With no right or
// no wrong answer among the decisions every AUC is 0.5; a feature with a NaN
// value has AUC NaN.
func (s *SignalTally) Signals() []Signal {
	out := make([]Signal, metapolicy.FeatureWidth)
	for k := range out {
		out[k] = Signal{Feature: metapolicy.FeatureName(k), AUC: auc(s.values[k], s.labels, s.positives)}
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

// WriteSignals writes one or more signal columns side by side: a header
// with the column names, then one row per feature.
func WriteSignals(w io.Writer, names []string, cols ...[]Signal) error {
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

// MeasureSignals plays pol on e (Run with opts) and returns every
// feature's signal over the decisions of its episodes: which features
// carry information about correctness in that environment, and how much.
func MeasureSignals(e Env, pol metapolicy.Policy, opts RunOptions) ([]Signal, int, error) {
	var s SignalTally
	if err := Run(e, pol, opts, s.Add); err != nil {
		return nil, 0, err
	}
	return s.Signals(), s.Decisions(), nil
}

// SimulatorSignals is what the simulator's debate episodes say of each
// feature: the signals the simulator plants.
type SimulatorSignals struct {
	Decisions int      `json:"decisions"`
	Signals   []Signal `json:"signals"`
	source    string   // the simulator's parameters' Source
	seed      uint64
}

// MeasureSimulatorSignals builds the simulator of cfg and measures each
// feature's signal (MeasureSignals) over the decisions of its debate
// episodes under opts (the debate: every agent refines every round).
func MeasureSimulatorSignals(cfg SimConfig, opts RunOptions) (*SimulatorSignals, error) {
	sim, err := NewSimulator(cfg)
	if err != nil {
		return nil, err
	}
	debate, err := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	if err != nil {
		return nil, err
	}
	sig, n, err := MeasureSignals(sim, debate, opts)
	if err != nil {
		return nil, err
	}
	return &SimulatorSignals{Decisions: n, Signals: sig, source: sim.Config().Params.Source, seed: opts.Seed}, nil
}

// WriteText writes a line saying what was measured, then the signals
// (WriteSignals).
func (s *SimulatorSignals) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "simulator (%s): AUC of each feature for \"the agent's current answer is right\" over %d debate decisions, seed %d\n",
		s.source, s.Decisions, s.seed)
	return WriteSignals(w, []string{"simulated"}, s.Signals)
}
