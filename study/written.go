package study

import (
	"fmt"
	"io"
	"time"
)

// What a command says once a study, an ablation or a shard is written:
// the line on stderr naming the files, and the report on stdout.

// A Written is a study (Report) or an ablation (study/ablate's Ablation,
// Stability) written into its directory (ablate.CrossValidateOrAblate):
// the line that says so, and what it prints.
type Written interface {
	Wrote(dir string, took time.Duration) string
	WriteOut(w io.Writer, asJSON bool) error
}

// Wrote is the line that says r was written into dir, took after it
// started.
func (r *Report) Wrote(dir string, took time.Duration) string {
	return fmt.Sprintf("study: %d rows in %s; wrote %s/{%s,%s,%s,%s}", len(r.Study.Rows), took.Round(time.Second), dir,
		ResultsName, ReportName, ParetoName, HTMLName)
}

// WriteOut prints r: its verdict lines (report.md opens with them and
// holds the tables), or with asJSON its summary.
func (r *Report) WriteOut(w io.Writer, asJSON bool) error {
	if asJSON {
		return r.Summary.WriteJSON(w)
	}
	return r.Summary.WriteVerdict(w)
}
