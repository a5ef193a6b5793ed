package run

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mpdf/mpdf/metapolicy"
)

// WriteText writes the line that says what the supervised stage did.
func (r SFTResult) WriteText(w io.Writer) error {
	var err error
	switch {
	case r.Skipped && r.Reason != "":
		_, err = fmt.Fprintln(w, "supervised stage: skipped: "+r.Reason)
	case r.Skipped:
		_, err = fmt.Fprintln(w, "supervised stage: skipped (sft.epochs 0)")
	default:
		_, err = fmt.Fprintf(w, "supervised stage: %d decisions (%s), %d epochs, %d steps, cross-entropy %.4f → %.4f, agreement %.1f%%\n",
			r.Rows, r.What, r.Epochs, r.Steps, r.FirstLoss, r.Loss, 100*r.Agreement)
	}
	return err
}

// WriteText writes the run's summary: its RL stage, the action shares
// sampled (online), the files written to dir, then the final evaluation on
// the environment envName with the seed, and the verdict.
func (r *Result) WriteText(w io.Writer, dir, envName string, seed uint64) error {
	unit := "iterations"
	if r.Mode == "offline" {
		unit = "passes"
	}
	fmt.Fprintf(w, "RL: %d %s, %d steps (%d skipped) in %s\n", r.Iterations, unit, r.Steps, r.Skipped, r.RLTime.Round(time.Millisecond))
	if a := r.Shares; a != nil && r.Mode == "online" {
		parts := make([]string, 0, metapolicy.NumActions)
		for _, act := range metapolicy.Actions {
			parts = append(parts, fmt.Sprintf("%s %.1f%% → %.1f%%", act, 100*a.First[act], 100*a.Last[act]))
		}
		fmt.Fprintf(w, "actions sampled, first → last fifth of RL: %s\n", strings.Join(parts, ", "))
	}
	if _, err := fmt.Fprintf(w, "wrote %s: %s\n", dir, strings.Join(r.Files, ", ")); err != nil || r.Eval == nil {
		return err
	}
	played := ""
	if r.EvalCheckpoint != "" {
		played = fmt.Sprintf(", %s (step %d)", r.EvalCheckpoint, r.EvalStep)
	}
	fmt.Fprintf(w, "\nevaluation on %d held-out tasks of %s (seed %d)%s:\n", r.EvalTasks, envName, seed, played)
	if err := r.Eval.WriteTable(w); err != nil {
		return err
	}
	if r.Verdict != nil {
		fmt.Fprintln(w)
		if err := r.Verdict.WriteTable(w); err != nil {
			return err
		}
	}
	if r.RLChange == nil {
		return nil
	}
	fmt.Fprintln(w)
	return r.RLChange.WriteText(w)
}
