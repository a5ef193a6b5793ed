package calibrate

import (
	"fmt"
	"io"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats/correctness"
)

// SimulatorSignals is what the simulator's debate episodes say of each
// feature: the signals the simulator plants.
type SimulatorSignals struct {
	Decisions int                         `json:"decisions"`
	Signals   []correctness.FeatureSignal `json:"signals"`
	source    string                      // the simulator's parameters' Source
	seed      uint64
}

// MeasureSimulatorSignals builds the simulator of cfg and measures each
// feature's signal (MeasureCorrectness) over the decisions of its debate
// episodes under opts (the debate: every agent refines every round).
func MeasureSimulatorSignals(cfg sim.Config, opts env.RunOptions) (*SimulatorSignals, error) {
	s, err := sim.New(cfg)
	if err != nil {
		return nil, err
	}
	debate, err := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	if err != nil {
		return nil, err
	}
	sig, n, err := MeasureCorrectness(s, debate, opts)
	if err != nil {
		return nil, err
	}
	return &SimulatorSignals{Decisions: n, Signals: sig, source: s.Config().Params.Source, seed: opts.Seed}, nil
}

// WriteText writes a line saying what was measured, then the signals
// (correctness.WriteTable).
func (s *SimulatorSignals) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "simulator (%s): AUC of each feature for \"the agent's current answer is right\" over %d debate decisions, seed %d\n",
		s.source, s.Decisions, s.seed)
	return correctness.WriteTable(w, []string{"simulated"}, s.Signals)
}

// MeasureCorrectness plays pol on e (env.Play with opts) and returns every
// feature's signal over the decisions of its episodes (correctness.Tally):
// which features carry information about correctness in that environment,
// and how much.
func MeasureCorrectness(e env.Env, pol metapolicy.Policy, opts env.RunOptions) ([]correctness.FeatureSignal, int, error) {
	var s correctness.Tally
	if err := env.Play(e, pol, opts, s.Add); err != nil {
		return nil, 0, err
	}
	return s.Signals(), s.Decisions(), nil
}
