package calibrate

import (
	"errors"
	"fmt"
	"io"

	"github.com/mpdf/mpdf/data/transcript"
	"github.com/mpdf/mpdf/env/sim"
	"github.com/mpdf/mpdf/internal/errmark"
	"github.com/mpdf/mpdf/stats/correctness"
)

// AddTranscripts reads transcript files one at a time (transcript.ReadFile
// with topts) and adds every question's recorded debate
// (transcript.ToEpisode) to the debate statistics and the signal tally,
// either of which may be nil. It returns the files' reports.
func AddTranscripts(paths []string, topts transcript.Options, stats *sim.DebateStats, sig *correctness.Tally) ([]transcript.Report, error) {
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
			if sig != nil {
				if err := sig.Add(&ep); err != nil {
					return reps, err
				}
			}
		}
		reps = append(reps, f.Report)
	}
	return reps, nil
}

// Transcripts fits the simulator to the recorded debates of the transcript
// files ([FromStats] over [AddTranscripts]' statistics and signals) and
// returns the fit, its check, and the files' reports.
func Transcripts(paths []string, topts transcript.Options, opts Options) (*Calibration, []transcript.Report, error) {
	var stats sim.DebateStats
	var sig correctness.Tally
	reps, err := AddTranscripts(paths, topts, &stats, &sig)
	if err != nil {
		return nil, reps, err
	}
	c, err := FromStats(&stats, &sig, opts)
	if err != nil {
		return nil, reps, fmt.Errorf("replay: calibrate on %s: %w", transcript.Names(paths), err)
	}
	return c, reps, nil
}

// ErrFiles marks the error of transcript globs that name no file.
var ErrFiles = errors.New("no transcripts")

// Fit fits the simulator to the transcripts the globs name (Transcripts),
// each file's readability report on reports (nil drops them), and writes
// the parameters to paramsOut unless it is "". opts.Source gets the count
// of files after it.
func Fit(globs []string, topts transcript.Options, opts Options, paramsOut string, reports io.Writer) (*Calibration, error) {
	paths, err := transcript.Glob(globs)
	if err != nil {
		return nil, errmark.Mark(err, ErrFiles)
	}
	opts.Source = fmt.Sprintf("%s (%d files)", opts.Source, len(paths))
	c, reps, err := Transcripts(paths, topts, opts)
	if err != nil {
		return nil, err
	}
	if reports != nil {
		if err := transcript.WriteReports(reports, reps); err != nil {
			return nil, err
		}
	}
	if paramsOut != "" {
		if err := c.Params.WriteFile(paramsOut); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// WriteReport writes the fit (WriteTable), then, when Fit wrote the
// parameters to paramsOut, where.
func (c *Calibration) WriteReport(w io.Writer, paramsOut string) error {
	if err := c.WriteTable(w); err != nil {
		return err
	}
	if paramsOut != "" {
		_, err := fmt.Fprintf(w, "\nwrote the parameters to %s\n", paramsOut)
		return err
	}
	return nil
}
