package study

import (
	"fmt"
	"io"
	"time"
)

// What a command says once a study, an ablation or a shard is written:
// the line on stderr naming the files, and the report on stdout.

// Wrote is the line that says r was written into dir, took after it
// started.
func (r *Report) Wrote(dir string, took time.Duration) string {
	return fmt.Sprintf("study: %d rows in %s; wrote %s/{%s,%s,%s,%s}", len(r.Study.Rows), took.Round(time.Second), dir,
		ResultsName, ReportName, ParetoName, HTMLName)
}

// WriteOut prints r: report.md, or with asJSON its summary.
func (r *Report) WriteOut(w io.Writer, asJSON bool) error {
	if asJSON {
		return r.Summary.WriteJSON(w)
	}
	_, err := w.Write(r.Markdown)
	return err
}

// Wrote is the line that says a was written into dir (Dir.RunAblation),
// took after it started.
func (a *Ablation) Wrote(dir string, took time.Duration) string {
	return fmt.Sprintf("study: ablation %s: %d settings in %s; wrote %s/{%s,%s,%s}", a.Kind, len(a.Rows), took.Round(time.Second), dir,
		AblationReportName, AblationJSONName, ResultsName)
}

// WriteOut prints a: ablation.md, or with asJSON ablation.json.
func (a *Ablation) WriteOut(w io.Writer, asJSON bool) error {
	if asJSON {
		return a.WriteJSON(w)
	}
	return a.WriteMarkdown(w)
}

// WriteText says what the shard run did: its cells, kept and run, and
// its record's file.
func (r *ShardRun) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "study shard %d/%d: %d of the study's %d cells (kept %d, ran %d); wrote %s\n",
		r.Record.Shard, r.Record.Shards, r.ShardCells, r.Record.Cells, r.Kept, r.Ran, r.Path)
	return err
}
