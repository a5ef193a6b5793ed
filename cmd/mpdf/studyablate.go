package main

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/internal/progress"
	"github.com/mpdf/mpdf/study"
)

// runAblation is mpdf study --ablate KIND: study.Ablate into the held
// directory (ablation.md, ablation.json, results.json), printing the
// report (or its JSON).
func runAblation(cmd *cobra.Command, e env.Env, cfg study.Config, dir *study.Dir, kind, out string, quiet, asJSON bool) error {
	bar := progress.New(1, "ablation "+kind+" (settings × folds × seeds)", quiet)
	cfg.Progress = bar.Grow()
	start := time.Now()
	a, md, err := dir.RunAblation(e, cfg, kind)
	bar.Done(err)
	if err != nil {
		return err
	}
	if !quiet {
		fmt.Fprintf(cmd.ErrOrStderr(), "study: ablation %s: %d settings in %s; wrote %s/{%s,%s,%s}\n", kind, len(a.Rows),
			time.Since(start).Round(time.Second), out, study.AblationReportName, study.AblationJSONName, study.ResultsName)
	}
	if asJSON {
		return a.WriteJSON(cmd.OutOrStdout())
	}
	_, err = cmd.OutOrStdout().Write(md)
	return err
}
