package ablate

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/study"
)

// CrossValidateOrAblate runs into d the study of cfg on e
// (study.Dir.CrossValidate) or, when ablate names one, that ablation
// (RunAblation), or the stability study (RunStabilityInto). On an error the Written is nil.
func CrossValidateOrAblate(d *study.Dir, e env.Env, cfg study.Config, ablate string) (study.Written, error) {
	if ablate == AblateStability {
		st, err := RunStabilityInto(d, e, cfg)
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
	a, _, err := RunAblation(d, e, cfg, ablate)
	if err != nil {
		return nil, err
	}
	return a, nil
}

// Work is the progress bar of CrossValidateOrAblate: its first total
// (Config.Jobs; an ablation's bar grows from 1 once it knows its settings)
// and its label.
func Work(c study.Config, ablate string) (total int, label string) {
	if ablate != "" {
		return 1, "ablation " + ablate + " (settings × folds × seeds)"
	}
	return c.Jobs(), "study (folds × seeds × policies)"
}

// RunAblation runs the ablation kind of cfg on e (Ablate) into d:
// ablation.md, ablation.json and results.json, returned with
// ablation.md's bytes. An ablation that fails leaves d as it found it.
func RunAblation(d *study.Dir, e env.Env, cfg study.Config, kind string) (*Ablation, []byte, error) {
	a, err := Ablate(e, cfg, kind)
	if err != nil {
		return nil, nil, errors.Join(err, d.Abandon())
	}
	if err := a.WriteDir(d); err != nil {
		return nil, nil, err
	}
	var md bytes.Buffer
	if err := a.WriteMarkdown(&md); err != nil {
		return nil, nil, err
	}
	return a, md.Bytes(), nil
}

// Wrote is the line that says a was written into dir (RunAblation),
// took after it started.
func (a *Ablation) Wrote(dir string, took time.Duration) string {
	return fmt.Sprintf("study: ablation %s: %d settings in %s; wrote %s/{%s,%s,%s}", a.Kind, len(a.Rows), took.Round(time.Second), dir,
		study.AblationReportName, study.AblationJSONName, study.ResultsName)
}

// WriteOut prints a: ablation.md, or with asJSON ablation.json.
func (a *Ablation) WriteOut(w io.Writer, asJSON bool) error {
	if asJSON {
		return a.WriteJSON(w)
	}
	return a.WriteMarkdown(w)
}
