package view

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mpdf/mpdf/trainer/run"
)

// RunViewName is the viewer page of a run's final evaluation in its
// directory (WriteRunViewer), which the run's page links to when it is
// there.
const RunViewName = run.ViewName

// WriteRunViewer writes into the run directory dir the viewer page of the
// final evaluation res played (run.Result.EvalPlay): each policy played
// again with the evaluation's own environment, tasks, episodes and seeds
// (Play: the same episodes, so the page's summary is eval.json's table),
// with the verdict's line. It returns the page's path, or "" and no
// error when the page would be over DefaultMaxBytes (ErrOverBudget: the
// run page then shows no link) or the run had no final evaluation.
func WriteRunViewer(dir string, res *run.Result) (string, error) {
	if res == nil || res.EvalPlay == nil {
		return "", nil
	}
	p := res.EvalPlay
	runs, err := Play(p.Env, p.Policies, p.Options)
	if err != nil {
		return "", fmt.Errorf("view: the final evaluation's viewer: %w", err)
	}
	o := Options{Title: fmt.Sprintf("final evaluation of run %s: %d held-out tasks × %d episodes, seed %d",
		filepath.Base(filepath.Clean(dir)), p.Options.NumTasks, p.Options.Episodes, p.Options.Seed)}
	if res.Verdict != nil {
		o.Verdict = []string{res.Verdict.Line()}
	}
	path := filepath.Join(dir, RunViewName)
	err = WriteFile(path, runs, o)
	if errors.Is(err, ErrOverBudget) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return path, nil
}
