package study

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/nn"
	"github.com/mpdf/mpdf/plots"
	"github.com/mpdf/mpdf/stats"
)

// PolicyStats is one policy's pooled results over the rows of a scope.
type PolicyStats struct {
	Policy string   `json:"policy"`
	Lambda *float64 `json:"lambda,omitempty"`
	Oracle bool     `json:"oracle,omitempty"`
	Rows   int      `json:"rows"` // task × seed rows with a scored episode
	Tasks  int      `json:"tasks"`
	Units  int      `json:"questions"`
	// Accuracy is the share of scored episodes answered right, with the
	// bootstrap interval resampled by question.
	Accuracy stats.Interval `json:"accuracy"`
	// TokensPerTask is the mean tokens of an episode (all rounds).
	TokensPerTask float64 `json:"tokens_per_task"`
	Persist       float64 `json:"persist"` // shares of the decisions
	Refine        float64 `json:"refine"`
	Concede       float64 `json:"concede"`
}

// Diff is the paired difference "learned − other" over the rows both
// share (same task, same seed): accuracy with its bootstrap interval
// resampled by question, and the mean difference of tokens per task.
type Diff struct {
	Learned  string         `json:"learned"`
	Other    string         `json:"other"`
	Accuracy stats.Interval `json:"accuracy"`
	Tokens   float64        `json:"tokens_per_task"`
}

// Scope is the summary of a set of rows: all of them, or one model's.
type Scope struct {
	Name     string        `json:"name"` // "all" or a model
	Policies []PolicyStats `json:"policies"`
	Diffs    []Diff        `json:"diffs"`
	Level    float64       `json:"level"` // of the intervals (Config.Bootstrap.Level)
}

// Summary is what report.md shows.
type Summary struct {
	Env       string   `json:"env"`
	Tasks     int      `json:"tasks"`
	Questions int      `json:"questions"`
	Models    []string `json:"models"`
	Folds     []string `json:"folds"`
	Rounds    int      `json:"rounds"`
	Config    Config   `json:"config"`
	Scopes    []Scope  `json:"scopes"`
	// Unscored counts the task × policy × seed rows without a gold answer
	// (counted in tokens and actions, not in accuracy); the oracle's rows,
	// copies of baseline rows, are not counted again.
	Unscored int `json:"unscored_rows"`
	// Verdicts are the study's verdict lines (design §9.1): one per λ,
	// then all λ pooled; the report opens with them and mpdf study prints
	// them.
	Verdicts []VerdictLine `json:"verdicts,omitempty"`
	// Notes say what the study left out and why (Study.Notes).
	Notes []string `json:"notes,omitempty"`
}

// Summarise pools the rows: over all tasks, then per model (when there
// are several), each with every policy's stats and every learned policy's
// paired difference with each baseline and the oracle. Accuracy has a
// percentile bootstrap interval resampled by question (package stats; a
// question's rows over files and seeds are drawn together); a difference
// "learned − baseline" pairs rows of the same task and seed. The Summary
// writes report.md (WriteMarkdown) or JSON; Dir.Write adds report.html,
// the same tables for a browser (view.WriteReport). The same Config and
// Env give the same bytes.
func (s *Study) Summarise() (*Summary, error) {
	unit, questions := s.units()
	var models []string
	for _, t := range s.Tasks {
		if !slices.Contains(models, t.Model) {
			models = append(models, t.Model)
		}
	}
	slices.Sort(models)
	sum := &Summary{Env: s.Env, Tasks: len(s.Tasks), Questions: questions, Models: models, Folds: s.Folds, Rounds: s.Rounds, Config: s.Config, Notes: s.Notes}
	if s.isCrossValidation() && s.hasVerdictBaseline() {
		v, err := s.verdicts()
		if err != nil {
			return nil, err
		}
		sum.Verdicts = v
	}
	for _, r := range s.Rows {
		if r.Scored == 0 && r.Policy != OracleName {
			sum.Unscored++
		}
	}
	all, err := s.scope("", true, unit)
	if err != nil {
		return nil, err
	}
	sum.Scopes = append(sum.Scopes, all)
	if len(models) < 2 {
		return sum, nil
	}
	for _, m := range models {
		sc, err := s.scope(m, false, unit)
		if err != nil {
			return nil, err
		}
		sum.Scopes = append(sum.Scopes, sc)
	}
	return sum, nil
}

// units numbers the questions (TaskInfo.Unit) by first appearance in the
// tasks: the bootstrap's clusters. unit[i] is task i's question; n the
// number of questions. (A question's text is the key: looked up once per
// task, not once per row.)
func (s *Study) units() (unit []int, n int) {
	num := map[string]int{}
	unit = make([]int, len(s.Tasks))
	for i, t := range s.Tasks {
		u, ok := num[t.Unit]
		if !ok {
			u = len(num)
			num[t.Unit] = u
		}
		unit[i] = u
	}
	return unit, len(num)
}

// policies lists the policy names in table order: baselines, oracle,
// learned by λ.
func (s *Study) policies() []string {
	return slices.Concat(s.Fixed, []string{OracleName}, s.Learned)
}

// scope summarises the rows of model, or all rows when all is set.
func (s *Study) scope(model string, all bool, unit []int) (Scope, error) {
	sc := Scope{Name: model, Level: s.Config.Bootstrap.Level}
	if all {
		sc.Name = "all"
	}
	by, keys := s.scopeRows(model, all)
	// Every interval of the scope is drawn in one batch (they resample the
	// same questions); named here for an error.
	var reqs []stats.Paired
	var named []string
	var ivs []*stats.Interval
	for _, name := range s.policies() {
		rows := by[name]
		if len(rows) == 0 {
			continue
		}
		ps, t := scopePolicy(name, rows, keys, unit)
		if len(t.x) > 0 {
			reqs, named = append(reqs, stats.Paired{X: t.x, Cluster: t.cl}), append(named, name)
		}
		sc.Policies = append(sc.Policies, ps)
	}
	for i := range sc.Policies {
		if sc.Policies[i].Rows > 0 {
			ivs = append(ivs, &sc.Policies[i].Accuracy)
		}
	}
	for _, l := range s.Learned {
		for _, o := range slices.Concat(s.Fixed, []string{OracleName}) {
			var pairs [][2]*ResultRow
			for _, k := range keys {
				a, okA := by[l][k]
				b, okB := by[o][k]
				if okA && okB {
					pairs = append(pairs, [2]*ResultRow{a, b})
				}
			}
			req, dt := s.pairedData(pairs, unit)
			if len(req.X) == 0 {
				continue
			}
			reqs, named = append(reqs, req), append(named, l+" − "+o)
			sc.Diffs = append(sc.Diffs, Diff{Learned: l, Other: o, Tokens: dt})
		}
	}
	for i := range sc.Diffs {
		ivs = append(ivs, &sc.Diffs[i].Accuracy)
	}
	got, err := s.Config.Bootstrap.PairedDiffs(reqs)
	if pe := (*stats.PairedError)(nil); errors.As(err, &pe) {
		return sc, fmt.Errorf("study: %s: %s: %w", sc.Name, named[pe.Index], pe.Err)
	} else if err != nil {
		return sc, fmt.Errorf("study: %s: %w", sc.Name, err)
	}
	for i, iv := range got {
		*ivs[i] = iv
	}
	return sc, nil
}

// rowKey is a row's seed and task: its place in a scope.
type rowKey struct {
	seed uint64
	task int
}

// scopeRows are the rows of model (or all rows) by policy and key, and
// the keys in task order.
func (s *Study) scopeRows(model string, all bool) (map[string]map[rowKey]*ResultRow, []rowKey) {
	by := map[string]map[rowKey]*ResultRow{}
	for i := range s.Rows {
		r := &s.Rows[i]
		if !all && r.Model != model {
			continue
		}
		if by[r.Policy] == nil {
			by[r.Policy] = map[rowKey]*ResultRow{}
		}
		by[r.Policy][rowKey{r.Seed, r.Index}] = r
	}
	// keys in row order, for deterministic sums
	var keys []rowKey
	seen := map[rowKey]bool{}
	for _, r := range s.Rows {
		k := rowKey{r.Seed, r.Index}
		if (all || r.Model == model) && !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	// Task order, not fold order: the bootstrap numbers clusters by first
	// appearance, so the same rows give the same interval whatever the folds.
	slices.SortFunc(keys, func(a, b rowKey) int {
		return cmp.Or(cmp.Compare(a.task, b.task), cmp.Compare(a.seed, b.seed))
	})
	return by, keys
}

// scopePolicy is one policy's statistics over its rows of a scope, in key
// order, with the tally whose scores its accuracy interval resamples.
func scopePolicy(name string, rows map[rowKey]*ResultRow, keys []rowKey, unit []int) (PolicyStats, PolicyTally) {
	ps := PolicyStats{Policy: name, Oracle: name == OracleName}
	var t PolicyTally
	tasks, units := map[int]bool{}, map[int]bool{}
	for _, k := range keys {
		r, ok := rows[k]
		if !ok {
			continue
		}
		ps.Lambda = r.Lambda
		if !t.Add(r) {
			continue
		}
		u := unit[r.Index]
		t.cl = append(t.cl, u)
		tasks[r.Index], units[u] = true, true
	}
	if ps.Oracle {
		ps.Lambda = nil
	}
	ps.Tasks, ps.Units = len(tasks), len(units)
	t.counts(&ps)
	return ps, t
}

// pairedDiff is "a − b" over pairs of rows of one task and seed, in the
// order given (the bootstrap numbers clusters by first appearance): the
// accuracy difference with the study's bootstrap of questions (unit[i]
// is task i's question), nil when no pair is scored on both sides, and
// the mean difference of tokens per task over every pair.
func (s *Study) pairedDiff(pairs [][2]*ResultRow, unit []int) (*stats.Interval, float64, error) {
	req, dt := s.pairedData(pairs, unit)
	if len(req.X) == 0 {
		return nil, 0, nil
	}
	iv, err := s.Config.Bootstrap.PairedDiff(req.X, req.Y, req.Cluster)
	if err != nil {
		return nil, 0, err
	}
	return &iv, dt, nil
}

// pairedData is pairedDiff's samples: the accuracies of the pairs scored
// on both sides with their question clusters, and the mean difference of
// tokens per task over every pair.
func (s *Study) pairedData(pairs [][2]*ResultRow, unit []int) (stats.Paired, float64) {
	var req stats.Paired
	var dt float64
	for _, p := range pairs {
		a, b := p[0], p[1]
		dt += float64(a.Tokens)/float64(max(1, a.Episodes)) - float64(b.Tokens)/float64(max(1, b.Episodes))
		if a.Scored == 0 || b.Scored == 0 {
			continue
		}
		req.X = append(req.X, float64(a.Correct)/float64(a.Scored))
		req.Y = append(req.Y, float64(b.Correct)/float64(b.Scored))
		req.Cluster = append(req.Cluster, unit[a.Index])
	}
	if len(req.X) == 0 {
		return req, 0
	}
	return req, dt / float64(len(pairs))
}

// WriteResults writes the rows as a JSON array, one row per line.
func (s *Study) WriteResults(w io.Writer) error {
	if _, err := io.WriteString(w, "["); err != nil {
		return err
	}
	for i := range s.Rows {
		b, err := json.Marshal(&s.Rows[i])
		if err != nil {
			return err
		}
		sep := ",\n"
		if i == 0 {
			sep = "\n"
		}
		if _, err := fmt.Fprintf(w, "%s%s", sep, b); err != nil {
			return err
		}
	}
	_, err := io.WriteString(w, "\n]\n")
	return err
}

// WriteJSON writes the summary as indented JSON.
func (sum *Summary) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(sum)
}

// WriteMarkdown writes the report: what was run, then per scope (all
// models, then each model) the policies' table and the paired differences.
func (sum *Summary) WriteMarkdown(w io.Writer) error {
	c := &sum.Config
	var b strings.Builder
	fmt.Fprintf(&b, "# mpdf study\n\n")
	if len(sum.Verdicts) > 0 {
		fmt.Fprintf(&b, "## Verdict\n\n")
		for _, v := range sum.Verdicts {
			fmt.Fprintf(&b, "- %s\n", v.Line)
		}
		fmt.Fprintf(&b, "\n## What ran\n\n")
	}
	fmt.Fprintf(&b, "- environment: `%s`\n", ShortEnv(sum.Env))
	fmt.Fprintf(&b, "- %d tasks, %d distinct questions, models: %s; up to %d deliberation rounds (a replayed task plays the rounds it recorded)\n",
		sum.Tasks, sum.Questions, strings.Join(quoteAll(sum.Models), ", "), sum.Rounds)
	if c.GroupBy == ByModel {
		fmt.Fprintf(&b, "- folds: leave one model out (%d folds)", len(sum.Folds))
	} else {
		fmt.Fprintf(&b, "- folds: %d by question (a question debated in several files is in one fold)", c.Folds)
	}
	fmt.Fprintf(&b, " × %d seeds (%d…%d): each fold trains on the other folds and is tested on its own tasks\n", c.Seeds, c.Seed, c.Seed+uint64(c.Seeds)-1)
	fmt.Fprintf(&b, "- test side: %d episode(s) per task and policy, the same episode seeds for every policy; learned policies %s\n",
		c.Episodes, map[bool]string{true: "greedy", false: "sampled"}[c.Greedy])
	t := &c.Train
	fmt.Fprintf(&b, "- training per fold and λ: %d SFT epochs (labels %s), %d SoftRankPO iterations × %d tasks × %d episodes, hidden %v, lr %g\n",
		t.SFT.Epochs, t.SFT.Labels, t.RL.Iterations, t.RL.TasksPerIter, t.RL.EpisodesPerTask, t.Hidden, t.Adam.LR)
	if c.Recipe != "" { // a named recipe (WithRecipe): what the learned policies are
		fmt.Fprintf(&b, "- recipe %s: agent policy %s, arch %s, loss %s, estimator %s, τ %g, γ %g, features %s\n", c.Recipe,
			t.Agents(), cmp.Or(t.Arch, "mlp"), nn.LossName(t.Loss.Kind), t.Estimator, t.Tau, t.Reward.Gamma, cmp.Or(t.FeatureLayout(), "the default"))
	}
	fmt.Fprintf(&b, "- intervals: %s percentile bootstrap, %d resamples of questions (seed %d); accuracy is over task × seed rows\n",
		Percent(c.Bootstrap.Level), c.Bootstrap.Resamples, c.Bootstrap.Seed)
	fmt.Fprintf(&b, "- `%s` is a ceiling, not a policy: per task the best fixed protocol (random excluded), chosen knowing the answer\n", OracleName)
	if sum.Unscored > 0 {
		fmt.Fprintf(&b, "- %d rows have no readable gold answer: counted in tokens and actions, not in accuracy\n", sum.Unscored)
	}
	for _, n := range sum.Notes {
		fmt.Fprintf(&b, "- %s\n", n)
	}
	for _, sc := range sum.Scopes {
		title := "All models"
		switch sc.Name {
		case "all":
		case "":
			title = "Model unknown (file names that do not say)"
		default:
			title = "Model " + sc.Name
		}
		fmt.Fprintf(&b, "\n## %s\n\n", title)
		fmt.Fprintf(&b, "| policy | tasks × seeds | accuracy | %s CI | tokens/task | persist | refine | concede |\n", Percent(c.Bootstrap.Level))
		fmt.Fprintf(&b, "|---|---:|---:|---|---:|---:|---:|---:|\n")
		for _, p := range sc.Policies {
			name := p.Policy
			if p.Oracle {
				name = "*" + name + " — ceiling*"
			}
			fmt.Fprintf(&b, "| %s | %d | %.3f | [%.3f, %.3f] | %.0f | %.3f | %.3f | %.3f |\n", name, p.Rows,
				p.Accuracy.Estimate, p.Accuracy.Low, p.Accuracy.High, p.TokensPerTask, p.Persist, p.Refine, p.Concede)
		}
		if len(sc.Diffs) > 0 {
			fmt.Fprintf(&b, "\nlearned − other, paired by task and seed (accuracy in points):\n\n")
			fmt.Fprintf(&b, "| learned | other | Δ accuracy | %s CI | Δ tokens/task |\n|---|---|---:|---|---:|\n", Percent(c.Bootstrap.Level))
			for _, d := range sc.Diffs {
				fmt.Fprintf(&b, "| %s | %s | %+.1f | [%+.1f, %+.1f] | %+.0f |\n", d.Learned, d.Other,
					100*d.Accuracy.Estimate, 100*d.Accuracy.Low, 100*d.Accuracy.High, d.Tokens)
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		if s == "" {
			s = "unknown"
		}
		out[i] = s
	}
	return out
}

// ShortEnv abbreviates a replay's list of files: an environment as a report names it.
func ShortEnv(name string) string {
	if n := strings.Count(name, ","); strings.HasPrefix(name, "replay:") && n > 0 {
		return fmt.Sprintf("replay of %d files", n+1)
	}
	return name
}

// WritePareto draws the scope's accuracy (with its Level interval) against
// tokens per task as a PNG: the baselines and the oracle as labelled
// points, the learned policies as a line through their λ sweep.
func (sc *Scope) WritePareto(w io.Writer) error {
	pts := make([]plots.Point, len(sc.Policies))
	for i, ps := range sc.Policies {
		pts[i] = plots.Point{Name: ps.Policy, Tokens: ps.TokensPerTask, Accuracy: ps.Accuracy.Estimate,
			Low: ps.Accuracy.Low, High: ps.Accuracy.High, Learned: ps.Lambda != nil}
	}
	title := fmt.Sprintf("accuracy vs tokens per task (%s; bars: %s bootstrap by question)", sc.Name, Percent(sc.Level))
	return plots.WritePareto(w, title, pts)
}

// Percent prints an interval level as a percentage: 0.95 → "95%", 0.975 →
// "97.5%".
func Percent(level float64) string {
	return fmt.Sprintf("%.4g%%", 100*level) // 4 digits: 100·0.9 is 90.00000000000001
}

// PolicyTally pools one policy's rows into a PolicyStats, for scope (a
// study's report) and study/compare: episodes, tokens and decisions over
// every row, accuracy samples over the scored ones. The caller adds each
// sample's question cluster (Cluster) right after Add reports it scored,
// so the samples and their clusters stay aligned.
type PolicyTally struct {
	x        []float64
	cl       []int
	episodes int
	tokens   int64
	acts     [3]int
}

// Add counts r, and reports whether it was scored (its accuracy then
// appended to x).
func (t *PolicyTally) Add(r *ResultRow) bool {
	t.episodes += r.Episodes
	t.tokens += r.Tokens
	t.acts[0] += r.Persist
	t.acts[1] += r.Refine
	t.acts[2] += r.Concede
	if r.Scored == 0 {
		return false
	}
	t.x = append(t.x, r.Accuracy())
	return true
}

// Cluster appends the question cluster of the sample Add last appended.
func (t *PolicyTally) Cluster(c int) { t.cl = append(t.cl, c) }

// Fill sets ps's rows, accuracy interval (b over x, clustered by cl),
// tokens per task and decision shares.
func (t *PolicyTally) Fill(ps *PolicyStats, b stats.Bootstrap) error {
	t.counts(ps)
	if len(t.x) > 0 {
		iv, err := b.Mean(t.x, t.cl)
		if err != nil {
			return err
		}
		ps.Accuracy = iv
	}
	return nil
}

// counts sets what fill sets but the accuracy interval.
func (t *PolicyTally) counts(ps *PolicyStats) {
	ps.Rows = len(t.x)
	ps.TokensPerTask = float64(t.tokens) / float64(max(1, t.episodes))
	if d := float64(t.acts[0] + t.acts[1] + t.acts[2]); d > 0 {
		ps.Persist, ps.Refine, ps.Concede = float64(t.acts[0])/d, float64(t.acts[1])/d, float64(t.acts[2])/d
	}
}

// WriteVerdict writes the verdict lines, one per line: what mpdf study
// prints (report.md holds the rest).
func (sum *Summary) WriteVerdict(w io.Writer) error {
	for _, v := range sum.Verdicts {
		if _, err := fmt.Fprintln(w, v.Line); err != nil {
			return err
		}
	}
	return nil
}
