package study

import (
	"fmt"
	"io"
	"time"

	"github.com/mpdf/mpdf/env"
)

// What a command says once a study, an ablation or a shard is written:
// the line on stderr naming the files, and the report on stdout.

// A Written is a study (Report) or an ablation (Ablation) written into its
// directory (Dir.CrossValidateOrAblate): the line that says so, and what
// it prints.
type Written interface {
	Wrote(dir string, took time.Duration) string
	WriteOut(w io.Writer, asJSON bool) error
}

// CrossValidateOrAblate runs into d the study of cfg on e
// (Dir.CrossValidate) or, when ablate names one, that ablation
// (Dir.RunAblation), or the stability study (Dir.RunStability). On an error the Written is nil.
func (d *Dir) CrossValidateOrAblate(e env.Env, cfg Config, ablate string) (Written, error) {
	if ablate == AblateStability {
		st, err := d.RunStability(e, cfg)
		if err != nil {
			return nil, err
		}
		return st, nil
	}
	if ablate == "" {
		r, err := d.CrossValidate(e, cfg)
		if err != nil {
			return nil, err // not a nil *Report in a Written
		}
		return r, nil
	}
	a, _, err := d.RunAblation(e, cfg, ablate)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Work is the progress bar of Dir.CrossValidateOrAblate: its first total
// (Jobs; an ablation's bar grows from 1 once it knows its settings) and
// its label.
func (c Config) Work(ablate string) (total int, label string) {
	if ablate != "" {
		return 1, "ablation " + ablate + " (settings × folds × seeds)"
	}
	return c.Jobs(), "study (folds × seeds × policies)"
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
