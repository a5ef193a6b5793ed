package ablate

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/mpdf/mpdf/outfile"
	"github.com/mpdf/mpdf/study"
)

// WriteDir writes the ablation's report (study.AblationReportName), its
// JSON (study.AblationJSONName) and the rows of every setting
// (results.json, whose policies are the settings' names) into the held
// directory d, each file atomically.
func (a *Ablation) WriteDir(d *study.Dir) error {
	dir := d.Path()
	if err := outfile.WriteFile(filepath.Join(dir, study.ResultsName), a.Study.WriteResults); err != nil {
		return err
	}
	if err := outfile.WriteFile(filepath.Join(dir, study.AblationJSONName), a.WriteJSON); err != nil {
		return err
	}
	return outfile.WriteFile(filepath.Join(dir, study.AblationReportName), a.WriteMarkdown)
}

// WriteJSON writes the ablation as indented JSON.
func (a *Ablation) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(a)
}

// WriteMarkdown writes the ablation's report: what ran, the settings'
// table, the baselines on the same tasks for context and, for the
// reward-scale ablation, how each estimator's advantages move.
func (a *Ablation) WriteMarkdown(w io.Writer) error {
	sum := a.Summary
	c := &sum.Config
	t := &c.Train
	lv := study.Percent(c.Bootstrap.Level)
	var b strings.Builder
	fmt.Fprintf(&b, "# mpdf ablation: %s\n\n", a.Kind)
	fmt.Fprintf(&b, "- environment: `%s`; %d tasks, %d distinct questions; up to %d deliberation rounds\n",
		study.ShortEnv(sum.Env), sum.Tasks, sum.Questions, sum.Rounds)
	if c.GroupBy == study.ByModel {
		fmt.Fprintf(&b, "- folds: leave one model out (%d folds)", len(sum.Folds))
	} else {
		fmt.Fprintf(&b, "- folds: %d by question", c.Folds)
	}
	fmt.Fprintf(&b, " × %d seeds (%d…%d), the same folds and episode seeds for every setting; %d test episode(s) per task, learned policies %s\n",
		c.Seeds, c.Seed, c.Seed+uint64(c.Seeds)-1, c.Episodes, map[bool]string{true: "greedy", false: "sampled"}[c.Greedy])
	fmt.Fprintf(&b, "- training per fold, unless the setting says otherwise: λ = %g, estimator %s, τ = %g, γ = %g, %d SFT epochs (labels %s), %d RL iterations × %d tasks × %d episodes, hidden %v, lr %g\n",
		a.Lambda, t.Estimator, t.Tau, t.Reward.Gamma, t.SFT.Epochs, t.SFT.Labels, t.RL.Iterations, t.RL.TasksPerIter, t.RL.EpisodesPerTask, t.Hidden, t.Adam.LR)
	same := "the same for every setting"
	if a.Kind == AblateArch {
		same = "the recipe's MLP, for every row" // the settings' own networks are not trained alone
	}
	fmt.Fprintf(&b, "- Δ: paired by task and seed against the setting named, %s percentile bootstrap of questions (%d resamples); persist shares are of the test-side decisions, \"after SFT\" the supervised stage alone (%s)\n\n",
		lv, c.Bootstrap.Resamples, same)
	fmt.Fprintf(&b, "| setting | accuracy [%s CI] | tokens/task | Δ accuracy (points) [%s CI] | Δ tokens/task | persist after SFT | persist after RL |\n", lv, lv)
	fmt.Fprintf(&b, "|---|---|---:|---|---:|---:|---:|\n")
	for _, r := range a.Rows {
		delta, dt := "reference", "—"
		if r.Ref != "" {
			delta, dt = fmt.Sprintf("vs %s: n/a", r.Ref), fmt.Sprintf("%+.0f", r.DeltaTokens)
			if r.Delta != nil {
				delta = fmt.Sprintf("vs %s: %+.1f [%+.1f, %+.1f]", r.Ref, 100*r.Delta.Estimate, 100*r.Delta.Low, 100*r.Delta.High)
			}
			if t := r.DeltaTokensCI; t != nil {
				dt = fmt.Sprintf("%+.0f [%+.0f, %+.0f]", t.Estimate, t.Low, t.High)
				if ref := a.tokensOf(r.Ref); ref > 0 {
					dt += fmt.Sprintf(" (%+.1f %%)", 100*t.Estimate/ref)
				}
			}
		}
		setting := r.Setting
		if r.Note != "" {
			setting += " (" + r.Note + ")"
		}
		fmt.Fprintf(&b, "| %s | %.3f [%.3f, %.3f] | %.0f | %s | %s | %.3f | %.3f |\n", setting,
			r.Accuracy.Estimate, r.Accuracy.Low, r.Accuracy.High, r.TokensPerTask, delta, dt, r.PersistSFT, r.PersistRL)
	}
	if len(a.Baselines) > 0 {
		fmt.Fprintf(&b, "\nFixed protocols on the same tasks and seeds, for context:\n\n")
		fmt.Fprintf(&b, "| protocol | accuracy [%s CI] | tokens/task | persist |\n|---|---|---:|---:|\n", lv)
		for _, p := range a.Baselines {
			fmt.Fprintf(&b, "| %s | %.3f [%.3f, %.3f] | %.0f | %.3f |\n", p.Policy, p.Accuracy.Estimate, p.Accuracy.Low, p.Accuracy.High, p.TokensPerTask, p.Persist)
		}
	}
	if len(a.Moves) > 0 {
		fmt.Fprintf(&b, "\nHow each estimator's advantages move under each transform of the reward, on the groups of %d decisions of the random policy (first %d tasks; τ = %g). scale: mean |A_f| / mean |A|; change: mean |A_f − A| / mean |A| (0: unmoved); sign flips: decisions pushed the other way. Every transform is increasing, so no order within a group changes.\n\n",
			a.Moves[0].Decisions, MovesTasks, t.Tau)
		fmt.Fprintf(&b, "| estimator | transform | scale | change | sign flips |\n|---|---|---:|---:|---:|\n")
		for _, m := range a.Moves {
			fmt.Fprintf(&b, "| %s | %s | %.3f | %.3f | %.3f |\n", m.Estimator, m.Transform, m.Scale, m.Change, m.SignFlips)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// tokensOf is the tokens per task of a setting or baseline of the table.
func (a *Ablation) tokensOf(name string) float64 {
	for _, r := range a.Rows {
		if r.Setting == name {
			return r.TokensPerTask
		}
	}
	for _, b := range a.Baselines {
		if b.Policy == name {
			return b.TokensPerTask
		}
	}
	return 0
}
