package calibrate

import (
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats/correctness"
)

// Options configure FromStats and Transcripts.
type Options struct {
	// Source is recorded in the parameters' Source field (say how they
	// were produced: the command and corpus).
	Source string
	// Seed seeds the simulated check (task pools and episodes).
	Seed uint64
	// Scale is how many simulated tasks play each real episode of a team
	// size and round count, for the check; 0 means 4.
	Scale int
	// Workers plays the simulated check on this many goroutines (0 =
	// GOMAXPROCS); the result does not depend on it.
	Workers int
}

// Calibration is a fit of the simulator to real debates and its check:
// each statistic measured on the real episodes and on the simulator's
// debate episodes of the same team sizes and round counts, and every
// feature's signal (AUC for correctness) on both.
type Calibration struct {
	Params       sim.Params                  `json:"params"`
	Rows         []sim.StatRow               `json:"rows"`
	RealSignals  []correctness.FeatureSignal `json:"real_signals"`
	SimSignals   []correctness.FeatureSignal `json:"sim_signals"`
	RealEpisodes int                         `json:"real_episodes"`
	SimEpisodes  int                         `json:"sim_episodes"`
}

// FromStats fits the simulator to real debate statistics and signals
// (Fit), then plays the debate policy on simulators with the
// fitted parameters — one per team size and round count of the real
// episodes, opts.Scale tasks per real episode — and measures the same
// statistics and signals on them.
func FromStats(real *sim.DebateStats, realSignals *correctness.Tally, opts Options) (*Calibration, error) {
	p, err := sim.Fit(real)
	if err != nil {
		return nil, err
	}
	p.Source = opts.Source
	scale := opts.Scale
	if scale == 0 {
		scale = 4
	}
	if scale < 0 {
		return nil, fmt.Errorf("calibrate: calibrate: scale %d, want ≥ 0", scale)
	}
	debate, err := metapolicy.NewHeuristic(metapolicy.HeuristicDebate)
	if err != nil {
		return nil, err
	}
	var simStats sim.DebateStats
	var simSig correctness.Tally
	shapes := make([][2]int, 0, len(real.Shape))
	for k := range real.Shape {
		shapes = append(shapes, k)
	}
	slices.SortFunc(shapes, func(a, b [2]int) int {
		if a[0] != b[0] {
			return a[0] - b[0]
		}
		return a[1] - b[1]
	})
	for i, sh := range shapes {
		if sh[1] < 1 {
			continue
		}
		s, err := sim.New(sim.Config{Seed: opts.Seed + uint64(i), Tasks: scale * real.Shape[sh], Agents: sh[0], Params: &p})
		if err != nil {
			return nil, err
		}
		err = env.Play(s, debate, env.RunOptions{Rounds: sh[1], Seed: opts.Seed, Workers: opts.Workers}, func(ep *data.Episode) error {
			if err := simStats.Add(ep); err != nil {
				return err
			}
			return simSig.Add(ep)
		})
		if err != nil {
			return nil, err
		}
	}
	c := &Calibration{Params: p, Rows: real.Summary(), RealSignals: realSignals.Signals(),
		SimSignals: simSig.Signals(), RealEpisodes: real.Episodes, SimEpisodes: simStats.Episodes}
	for i, r := range simStats.Summary() {
		c.Rows[i].Sim = r.Real
	}
	return c, nil
}

// WriteTable writes the fit: the parameters, the statistics side by side
// and the signals side by side.
func (c *Calibration) WriteTable(w io.Writer) error {
	b, err := c.Params.MarshalIndent()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "fitted parameters:\n%s\n", b)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "statistic\treal (%d episodes)\tsimulated (%d episodes)\n", c.RealEpisodes, c.SimEpisodes)
	for _, r := range c.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", r.Name, num(r.Real), num(r.Sim))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nsignals: AUC of each feature for \"the agent's current answer is right\", debate episodes")
	return correctness.WriteTable(w, []string{"real", "simulated"}, c.RealSignals, c.SimSignals)
}

func num(x float64) string {
	switch {
	case math.IsNaN(x):
		return "—"
	case math.Abs(x) >= 100:
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3f", x)
}
