package env

import (
	"fmt"
	"io"
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

// How a learned policy was played when judged (JudgeOptions.Play).
const (
	PlayGreedy  = "greedy"  // its most probable action at every decision
	PlaySampled = "sampled" // an action drawn from its distribution
)

// DefaultLambda is the price of tokens a verdict uses when none is given:
// 0, accuracy alone (tokens then decide only where no accuracy difference
// is established), as training's reward λ defaults to 0 (design §2).
const DefaultLambda = 0.0

// JudgeOptions is what a verdict needs besides the results.
type JudgeOptions struct {
	// Lambda is the user's price of tokens, training's reward λ (design
	// §2) in the same units: 1,000 tokens cost λ correct answers, i.e.
	// 100·λ accuracy points (λ = 0.01: a point per 1,000 tokens). A row
	// is scored by its net points, 100·accuracy − λ·tokens per task / 10.
	Lambda float64
	// Confidence says the agents state a confidence: threshold is judged
	// (without one it plays exactly as debate, and is left out).
	Confidence bool
	// Play says how the learned policies were played (PlayGreedy or
	// PlaySampled), for the verdict's heading; "" says nothing.
	Play string
}

// Verdict says, for learned policies evaluated with the fixed protocols on
// the same tasks and seeds, where they stand and what to use, by the
// decision rule of design §9.1 (decide). It is what `mpdf train` prints at
// the end of a run (and writes into eval.json), what `mpdf eval` prints
// after its table and what `mpdf study` ends with.
type Verdict struct {
	// Policy is the learned policy judged (its Result's name); "" when
	// several are (JudgeAll).
	Policy string `json:"policy"`
	// Play is how the learned policies were played (JudgeOptions.Play);
	// Lambda the price of tokens the rule used.
	Play   string  `json:"play,omitempty"`
	Lambda float64 `json:"lambda"`
	// Rows are the learned policies, then each baseline present, with the
	// paired difference "policy − row" when one policy is judged.
	Rows []VerdictRow `json:"rows"`
	// Use is the row the verdict recommends; Sentence says why, in one
	// line: every difference it cites with its interval, and "not
	// established" where the interval holds 0.
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
	Learned       bool    `json:"learned,omitempty"`
	Accuracy      float64 `json:"accuracy"`
	CILow         float64 `json:"ci95_low"`
	CIHigh        float64 `json:"ci95_high"`
	TokensPerTask float64 `json:"tokens_per_task"`
	// Frontier is true when no other row dominates this one: none is at
	// least as accurate at fewer tokens per task, or more accurate at no
	// more (nor, for a row equal to an earlier one in accuracy and tokens,
	// that row: a baseline before a learned policy). The verdict uses a
	// frontier row only.
	Frontier bool `json:"frontier"`
	// DominatedBy names the row that dominates this one ("" on the
	// frontier).
	DominatedBy string `json:"dominated_by,omitempty"`
	// DeltaAccuracy is the judged policy's accuracy minus this row's, in
	// points (100 × share), paired by task: the percentile interval of a
	// bootstrap that resamples tasks, each task's episodes together
	// (stats.Bootstrap.PairedDiff). DeltaTokens is the same for tokens per
	// task. Both nil on the policy's own row, and under JudgeAll.
	DeltaAccuracy *stats.Interval `json:"delta_accuracy_points,omitempty"`
	DeltaTokens   *stats.Interval `json:"delta_tokens_per_task,omitempty"`
}

// verdictInterval configures the verdict's paired intervals: 95 %,
// 2000 resamples, a fixed seed, so that the same results give the same
// bounds.
var verdictInterval = stats.Bootstrap{Resamples: stats.DefaultResamples, Level: 0.95, Seed: 1}

// Judge builds the verdict of the learned policy named learned against the
// baselines of VerdictBaselines found in rs (threshold only when
// o.Confidence). Every result must come from the same tasks and episodes
// (Evaluate's common random numbers): rows are paired by task.
func Judge(rs Results, learned string, o JudgeOptions) (*Verdict, error) {
	v, err := judge(rs, []string{learned}, o)
	if err != nil {
		return nil, err
	}
	v.Policy = learned
	return v, nil
}

// JudgeAll is Judge over several learned policies at once (a study's
// policies, one per λ, pooled): the rule picks among all of them and the
// baselines; the rows carry no difference to one policy.
func JudgeAll(rs Results, learned []string, o JudgeOptions) (*Verdict, error) {
	return judge(rs, learned, o)
}

func judge(rs Results, learned []string, o JudgeOptions) (*Verdict, error) {
	byName := map[string]*Result{}
	for i := range rs {
		byName[rs[i].Policy] = &rs[i]
	}
	if len(learned) == 0 {
		return nil, fmt.Errorf("env: verdict: no learned policy to judge")
	}
	if !(o.Lambda >= 0) {
		return nil, fmt.Errorf("env: verdict: price of tokens λ %v: want ≥ 0", o.Lambda)
	}
	var entries []*Result
	for _, name := range learned {
		l, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("env: verdict: no result for policy %s", name)
		}
		entries = append(entries, l)
	}
	nl := len(entries)
	for _, name := range VerdictBaselines() {
		if name == metapolicy.HeuristicThreshold && !o.Confidence {
			continue
		}
		if b, ok := byName[name]; ok && !containsName(learned, name) {
			entries = append(entries, b)
		}
	}
	if len(entries) == nl {
		return nil, fmt.Errorf("env: verdict: no fixed protocol (%s) among the results", strings.Join(VerdictBaselines(), ", "))
	}
	v := &Verdict{Play: o.Play, Lambda: o.Lambda, Resamples: verdictInterval.Resamples, Level: verdictInterval.Level}
	pairs := make([][]pairStat, len(entries))
	for i := range pairs {
		pairs[i] = make([]pairStat, len(entries))
	}
	for i := range entries {
		for j := i + 1; j < len(entries); j++ {
			p, n, err := pairedDiff(entries[i], entries[j], o.Lambda)
			if err != nil {
				return nil, err
			}
			pairs[i][j], pairs[j][i], v.Tasks = p, p.negated(), n
		}
	}
	for i, r := range entries {
		row := VerdictRow{Policy: r.Policy, Learned: i < nl, Accuracy: r.Accuracy, CILow: r.CILow, CIHigh: r.CIHigh, TokensPerTask: r.TokensPerTask}
		if nl == 1 && i > 0 {
			acc, tok := pairs[0][i].acc, pairs[0][i].tok
			row.DeltaAccuracy, row.DeltaTokens = &acc, &tok
		}
		v.Rows = append(v.Rows, row)
	}
	d := decide(v.Rows, pairs, o.Lambda)
	for i := range v.Rows {
		v.Rows[i].Frontier = d.dominator[i] < 0
		if k := d.dominator[i]; k >= 0 {
			v.Rows[i].DominatedBy = v.Rows[k].Policy
		}
	}
	v.Use, v.Sentence = v.Rows[d.use].Policy, d.sentence
	return v, nil
}

func containsName(names []string, n string) bool {
	for _, s := range names {
		if s == n {
			return true
		}
	}
	return false
}

// pairStat is one paired difference a − b: accuracy in points, tokens per
// task, and net points (accuracy − λ·tokens/10), each with its interval.
type pairStat struct{ acc, tok, net stats.Interval }

func (p pairStat) negated() pairStat {
	neg := func(i stats.Interval) stats.Interval {
		return stats.Interval{Estimate: -i.Estimate, Low: -i.High, High: -i.Low}
	}
	return pairStat{acc: neg(p.acc), tok: neg(p.tok), net: neg(p.net)}
}

// pairedDiff is a − b per task (accuracy in points, tokens per episode,
// and net points at price lambda), with the paired bootstrap over tasks.
// Tasks without a gold answer count for tokens only (and not in net
// points, which need an accuracy).
func pairedDiff(a, b *Result, lambda float64) (p pairStat, n int, err error) {
	other := make(map[string]TaskOutcome, len(b.ByTask))
	for _, t := range b.ByTask {
		other[t.Task] = t
	}
	var xa, ya, xn, yn, xt, yt []float64
	var ca, ct []int
	for i, t := range a.ByTask {
		u, ok := other[t.Task]
		if !ok || t.Episodes == 0 || u.Episodes == 0 {
			return p, 0, fmt.Errorf("env: verdict: task %s played by %s but not by %s: the results are not paired", t.Task, a.Policy, b.Policy)
		}
		if t.Episodes != u.Episodes || t.Scored != u.Scored {
			return p, 0, fmt.Errorf("env: verdict: task %s: %d episodes under %s, %d under %s: the results are not paired", t.Task, t.Episodes, a.Policy, u.Episodes, b.Policy)
		}
		// One observation per episode (a task's mean, repeated), clustered
		// by task: the estimate is exactly the difference of the pooled
		// accuracies (and tokens per episode), and the bootstrap resamples
		// whole tasks.
		ta, ua := float64(t.Tokens)/float64(t.Episodes), float64(u.Tokens)/float64(u.Episodes)
		for range t.Episodes {
			xt, yt, ct = append(xt, ta), append(yt, ua), append(ct, i)
		}
		for range t.Scored {
			pa, pb := 100*float64(t.Correct)/float64(t.Scored), 100*float64(u.Correct)/float64(u.Scored)
			xa, ya, ca = append(xa, pa), append(ya, pb), append(ca, i)
			xn, yn = append(xn, pa-lambda*ta/10), append(yn, pb-lambda*ua/10)
		}
		if t.Scored > 0 {
			n++
		}
	}
	if len(a.ByTask) != len(b.ByTask) {
		return p, 0, fmt.Errorf("env: verdict: %s played %d tasks, %s %d: the results are not paired", a.Policy, len(a.ByTask), b.Policy, len(b.ByTask))
	}
	if len(xa) == 0 {
		return p, 0, fmt.Errorf("env: verdict: no task with a gold answer: accuracy cannot be compared")
	}
	if p.acc, err = verdictInterval.PairedDiff(xa, ya, ca); err != nil {
		return p, 0, err
	}
	if p.tok, err = verdictInterval.PairedDiff(xt, yt, ct); err != nil {
		return p, 0, err
	}
	p.net = p.acc
	if lambda != 0 {
		p.net, err = verdictInterval.PairedDiff(xn, yn, ca)
	}
	return p, n, err
}

// WriteTable writes the verdict: the points with their paired differences
// and frontier marks, then the sentence.
func (v *Verdict) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "%s against the fixed protocols (%sΔ paired by question over %d questions, %.0f%% bootstrap intervals; * on the accuracy–tokens frontier):\n",
		v.Policy, v.playText(), v.Tasks, 100*v.Level)
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
	_, err := fmt.Fprintln(w, v.Line())
	return err
}

// playText is the heading's note of how the learned policy was played.
func (v *Verdict) playText() string {
	switch v.Play {
	case PlayGreedy:
		return "played greedy; "
	case PlaySampled:
		return "played sampled; "
	}
	return ""
}

// Line is the verdict as one line: "verdict (λ …): " and the sentence.
func (v *Verdict) Line() string {
	return fmt.Sprintf("verdict (%s): %s", LambdaText(v.Lambda), v.Sentence)
}

// LambdaText says a price of tokens for a reader: "λ 0, accuracy alone",
// or "λ 0.01, 1 point per 1000 tokens".
func LambdaText(lambda float64) string {
	if lambda == 0 {
		return "λ 0, accuracy alone"
	}
	return fmt.Sprintf("λ %g, %g points per 1000 tokens", lambda, 100*lambda)
}

// WriteVerdicts writes, after a blank line each, the verdict table of every
// policy of learned that rs can judge (Judge); one without the baselines to
// judge it against is left out, as the evaluation that left them out asked.
func WriteVerdicts(w io.Writer, rs Results, learned []string, o JudgeOptions) error {
	for _, name := range learned {
		v, err := Judge(rs, name, o)
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
