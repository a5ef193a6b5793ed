package env

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats"
)

// VerdictBaselines are the fixed protocols a learned policy is judged
// against, in the order the verdict lists them: the round-0 vote, full
// debate, the unanimity gate, refining until consensus, and the confidence
// threshold (only where a confidence exists: without one it is debate).
func VerdictBaselines() []string {
	return []string{metapolicy.HeuristicMajority, metapolicy.HeuristicDebate, metapolicy.HeuristicGate,
		metapolicy.HeuristicUntilAgree, metapolicy.HeuristicThreshold}
}

// Verdict says, for one learned policy evaluated with the fixed protocols
// on the same tasks and seeds, where it stands and what to use. It is what
// `mpdf train` prints at the end of a run (and writes into eval.json) and
// `mpdf eval` prints after its table.
type Verdict struct {
	// Policy is the learned policy judged (its Result's name).
	Policy string `json:"policy"`
	// Rows are the policy, then each baseline present, with the paired
	// difference "policy − baseline".
	Rows []VerdictRow `json:"rows"`
	// Use is the policy or baseline the verdict recommends; Sentence says
	// why, in one plain sentence.
	Use      string `json:"use"`
	Sentence string `json:"sentence"`
	// Tasks is the number of tasks paired (distinct task ids with a gold
	// answer: a replayed question debated in several files is one);
	// Resamples and Level describe the bootstrap of every interval.
	Tasks     int     `json:"tasks"`
	Resamples int     `json:"resamples"`
	Level     float64 `json:"level"`
}

// VerdictRow is one point of the verdict's table.
type VerdictRow struct {
	Policy        string  `json:"policy"`
	Accuracy      float64 `json:"accuracy"`
	CILow         float64 `json:"ci95_low"`
	CIHigh        float64 `json:"ci95_high"`
	TokensPerTask float64 `json:"tokens_per_task"`
	// Frontier is true when no other row is at least as accurate at no
	// more tokens per task and strictly better in one of the two.
	Frontier bool `json:"frontier"`
	// DeltaAccuracy is the learned policy's accuracy minus this row's,
	// in points (100 × share), paired by task: the percentile interval of
	// a bootstrap that resamples tasks, each task's episodes together
	// (stats.Bootstrap.PairedDiff). DeltaTokens is the same for tokens
	// per task. Both nil on the learned policy's own row.
	DeltaAccuracy *stats.Interval `json:"delta_accuracy_points,omitempty"`
	DeltaTokens   *stats.Interval `json:"delta_tokens_per_task,omitempty"`
}

// verdictInterval configures the verdict's paired intervals: 95 %,
// 2000 resamples, a fixed seed, so that the same results give the same
// bounds.
var verdictInterval = stats.Bootstrap{Resamples: stats.DefaultResamples, Level: 0.95, Seed: 1}

// Judge builds the verdict of the learned policy named learned against the
// baselines of VerdictBaselines found in rs (threshold only when confidence
// is true: the environment gives the agents a confidence). Every result
// must come from the same tasks and episodes (Evaluate's common random
// numbers): rows are paired by task.
func Judge(rs Results, learned string, confidence bool) (*Verdict, error) {
	byName := map[string]*Result{}
	for i := range rs {
		byName[rs[i].Policy] = &rs[i]
	}
	l, ok := byName[learned]
	if !ok {
		return nil, fmt.Errorf("env: verdict: no result for policy %s", learned)
	}
	var base []*Result
	for _, name := range VerdictBaselines() {
		if name == metapolicy.HeuristicThreshold && !confidence {
			continue
		}
		if b, ok := byName[name]; ok && name != learned {
			base = append(base, b)
		}
	}
	if len(base) == 0 {
		return nil, fmt.Errorf("env: verdict: no fixed protocol (%s) among the results", strings.Join(VerdictBaselines(), ", "))
	}
	v := &Verdict{Policy: learned, Resamples: verdictInterval.Resamples, Level: verdictInterval.Level}
	v.Rows = append(v.Rows, rowOf(l))
	for _, b := range base {
		row := rowOf(b)
		acc, tok, n, err := pairedDiff(l, b)
		if err != nil {
			return nil, err
		}
		row.DeltaAccuracy, row.DeltaTokens, v.Tasks = &acc, &tok, n
		v.Rows = append(v.Rows, row)
	}
	markFrontier(v.Rows)
	v.Use, v.Sentence = advise(v.Rows)
	return v, nil
}

func rowOf(r *Result) VerdictRow {
	return VerdictRow{Policy: r.Policy, Accuracy: r.Accuracy, CILow: r.CILow, CIHigh: r.CIHigh, TokensPerTask: r.TokensPerTask}
}

// pairedDiff is a − b per task (accuracy in points and tokens per
// episode), with the paired bootstrap over tasks. Tasks without a gold
// answer count for tokens only.
func pairedDiff(a, b *Result) (acc, tok stats.Interval, n int, err error) {
	other := make(map[string]TaskOutcome, len(b.ByTask))
	for _, t := range b.ByTask {
		other[t.Task] = t
	}
	var xa, ya, xt, yt []float64
	var ca, ct []int
	for i, t := range a.ByTask {
		u, ok := other[t.Task]
		if !ok || t.Episodes == 0 || u.Episodes == 0 {
			return acc, tok, 0, fmt.Errorf("env: verdict: task %s played by %s but not by %s: the results are not paired", t.Task, a.Policy, b.Policy)
		}
		if t.Episodes != u.Episodes || t.Scored != u.Scored {
			return acc, tok, 0, fmt.Errorf("env: verdict: task %s: %d episodes under %s, %d under %s: the results are not paired", t.Task, t.Episodes, a.Policy, u.Episodes, b.Policy)
		}
		// One observation per episode (a task's mean, repeated), clustered
		// by task: the estimate is exactly the difference of the pooled
		// accuracies (and tokens per episode), and the bootstrap resamples
		// whole tasks.
		for range t.Episodes {
			xt, yt, ct = append(xt, float64(t.Tokens)/float64(t.Episodes)), append(yt, float64(u.Tokens)/float64(u.Episodes)), append(ct, i)
		}
		for range t.Scored {
			xa = append(xa, 100*float64(t.Correct)/float64(t.Scored))
			ya = append(ya, 100*float64(u.Correct)/float64(u.Scored))
			ca = append(ca, i)
		}
		if t.Scored > 0 {
			n++
		}
	}
	if len(a.ByTask) != len(b.ByTask) {
		return acc, tok, 0, fmt.Errorf("env: verdict: %s played %d tasks, %s %d: the results are not paired", a.Policy, len(a.ByTask), b.Policy, len(b.ByTask))
	}
	if len(xa) == 0 {
		return acc, tok, 0, fmt.Errorf("env: verdict: no task with a gold answer: accuracy cannot be compared")
	}
	if acc, err = verdictInterval.PairedDiff(xa, ya, ca); err != nil {
		return acc, tok, 0, err
	}
	tok, err = verdictInterval.PairedDiff(xt, yt, ct)
	return acc, tok, n, err
}

// markFrontier sets Frontier on the rows no other row dominates.
func markFrontier(rows []VerdictRow) {
	for i := range rows {
		rows[i].Frontier = true
		for j := range rows {
			p, q := rows[i], rows[j]
			if i != j && q.Accuracy >= p.Accuracy && q.TokensPerTask <= p.TokensPerTask &&
				(q.Accuracy > p.Accuracy || q.TokensPerTask < p.TokensPerTask) {
				rows[i].Frontier = false
				break
			}
		}
	}
}

// advise picks what to use and says why. A baseline whose paired interval
// does not put it below the learned policy (Δ's low bound ≤ 0) is "as
// accurate"; one whose interval lies wholly above is "more accurate".
//   - A baseline as accurate or more at fewer tokens: use it (the most
//     accurate such one, then the cheapest), naming a more accurate one
//     for those who want accuracy.
//   - Else, if a baseline is more accurate at more tokens: the policy when
//     tokens matter, that baseline when accuracy does.
//   - Else the policy.
//
// A baseline that plays exactly as the policy (the same outcome on every
// question, the same tokens) comes first: it needs no trained policy.
func advise(rows []VerdictRow) (use, sentence string) {
	l := rows[0]
	for _, b := range rows[1:] {
		d, t := b.DeltaAccuracy, b.DeltaTokens
		if d.Low == 0 && d.High == 0 && math.Abs(t.Estimate) < 0.5 && math.Abs(t.Low) < 0.5 && math.Abs(t.High) < 0.5 {
			return b.Policy, fmt.Sprintf("on these questions this policy plays as %s does (the same accuracy on every question, the same tokens): use %s, which needs no trained policy.", b.Policy, b.Policy)
		}
	}
	var cheaper, better []VerdictRow
	for _, b := range rows[1:] {
		d := b.DeltaAccuracy
		if d.Low <= 0 && b.TokensPerTask < l.TokensPerTask {
			cheaper = append(cheaper, b)
		}
		if d.High < 0 {
			better = append(better, b)
		}
	}
	pick := func(rs []VerdictRow) VerdictRow {
		return slices.MinFunc(rs, func(a, b VerdictRow) int {
			switch {
			case a.Accuracy != b.Accuracy:
				return cmpDesc(a.Accuracy, b.Accuracy)
			default:
				return cmpDesc(b.TokensPerTask, a.TokensPerTask)
			}
		})
	}
	if len(cheaper) > 0 {
		b := pick(cheaper)
		how := "as accurate as"
		if b.DeltaAccuracy.High < 0 {
			how = "more accurate than"
		}
		also := ""
		if rest := slices.DeleteFunc(slices.Clone(better), func(r VerdictRow) bool { return r.Policy == b.Policy || r.Accuracy <= b.Accuracy }); len(rest) > 0 {
			c := pick(rest)
			also = fmt.Sprintf(" (or %s for accuracy: %s, at %.0f tokens)", c.Policy, deltaText(c), c.TokensPerTask)
		}
		return b.Policy, fmt.Sprintf("on these questions %s is %s this policy (%s) at fewer tokens (%.0f vs %.0f per task): use %s%s.",
			b.Policy, how, deltaText(b), b.TokensPerTask, l.TokensPerTask, b.Policy, also)
	}
	if len(better) > 0 {
		b := pick(better)
		return l.Policy, fmt.Sprintf("on these questions this policy costs fewer tokens than %s (%.0f vs %.0f per task), which is more accurate (%s): use this policy when tokens matter, %s when accuracy does.",
			b.Policy, l.TokensPerTask, b.TokensPerTask, deltaText(b), b.Policy)
	}
	return l.Policy, "on these questions no fixed protocol is more accurate than this policy, and none as accurate costs fewer tokens: use this policy."
}

func cmpDesc(a, b float64) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// deltaText is "policy − b" as a reader sees it: b's accuracy relative to
// the policy, in points, with the interval.
func deltaText(b VerdictRow) string {
	d := b.DeltaAccuracy
	return fmt.Sprintf("policy − %s: %+.1f points [%+.1f, %+.1f]", b.Policy, d.Estimate, d.Low, d.High)
}

// WriteTable writes the verdict: the points with their paired differences
// and frontier marks, then the sentence.
func (v *Verdict) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s against the fixed protocols (Δ paired by question over %d questions, %.0f%% bootstrap intervals; * on the accuracy–tokens frontier):\n", v.Policy, v.Tasks, 100*v.Level)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "\tpolicy\taccuracy\t95% CI\ttokens/task\tΔ accuracy (policy − row, points)\tΔ tokens/task")
	for _, r := range v.Rows {
		mark, da, dt := " ", "—", "—"
		if r.Frontier {
			mark = "*"
		}
		if d := r.DeltaAccuracy; d != nil {
			da = fmt.Sprintf("%+.1f [%+.1f, %+.1f]", d.Estimate, d.Low, d.High)
		}
		if d := r.DeltaTokens; d != nil {
			dt = fmt.Sprintf("%+.0f", d.Estimate)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t[%.3f, %.3f]\t%.0f\t%s\t%s\n", mark, r.Policy, r.Accuracy, r.CILow, r.CIHigh, r.TokensPerTask, da, dt)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintf(w, "verdict: %s\n", v.Sentence)
	return err
}

// WriteVerdicts writes, after a blank line each, the verdict table of every
// policy of learned that rs can judge (Judge); one without the baselines to
// judge it against is left out, as the evaluation that left them out asked.
func WriteVerdicts(w io.Writer, rs Results, learned []string, confidence bool) error {
	for _, name := range learned {
		v, err := Judge(rs, name, confidence)
		if err != nil {
			continue
		}
		fmt.Fprintln(w)
		if err := v.WriteTable(w); err != nil {
			return err
		}
	}
	return nil
}
