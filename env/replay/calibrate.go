package replay

import (
	"fmt"
	"strings"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env"
)

// Tally reads transcript files one at a time (transcript.ReadFile with
// topts) and adds every question's recorded debate (transcript.ToEpisode)
// to the debate statistics and the signal tally, either of which may be
// nil. It returns the files' reports.
func Tally(paths []string, topts transcript.Options, stats *env.DebateStats, signals *env.SignalTally) ([]transcript.Report, error) {
	var reps []transcript.Report
	for _, p := range paths {
		f, err := transcript.ReadFile(p, topts)
		if err != nil {
			return reps, err
		}
		for i := range f.Questions {
			ep := transcript.ToEpisode(&f.Questions[i], transcript.EpisodeOptions{})
			if stats != nil {
				if err := stats.Add(&ep); err != nil {
					return reps, err
				}
			}
			if signals != nil {
				if err := signals.Add(&ep); err != nil {
					return reps, err
				}
			}
		}
		reps = append(reps, f.Report)
	}
	return reps, nil
}

// Calibrate fits the simulator to the recorded debates of the transcript
// files (env.Calibrate over Tally's statistics and signals) and returns
// the fit, its check, and the files' reports.
func Calibrate(paths []string, topts transcript.Options, opts env.CalibrateOptions) (*env.Calibration, []transcript.Report, error) {
	var stats env.DebateStats
	var signals env.SignalTally
	reps, err := Tally(paths, topts, &stats, &signals)
	if err != nil {
		return nil, reps, err
	}
	c, err := env.Calibrate(&stats, &signals, opts)
	if err != nil {
		return nil, reps, fmt.Errorf("replay: calibrate on %s: %w", strings.Join(bases(paths), ", "), err)
	}
	return c, reps, nil
}
