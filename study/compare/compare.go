package compare

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mpdf/mpdf/stats"
	"github.com/mpdf/mpdf/study"
)

// By names the groups a comparison breaks its rows into, and the
// groups a hindsight ceiling chooses one protocol for.
type By string

const (
	Overall     By = ""           // no break-down: all rows
	ByKind      By = "kind"       // the task kind: the task id before ":" (gsm8k, mmlu, …)
	ByModel     By = "model"      // the model of the transcript (ResultRow.Model)
	ByModelKind By = "model×kind" // both
)

// ParseBy reads a group name: "" or all, kind, model, or
// model×kind (also written model-kind, model+kind or model*kind).
func ParseBy(s string) (By, error) {
	switch s {
	case "", "all":
		return Overall, nil
	case "kind":
		return ByKind, nil
	case "model":
		return ByModel, nil
	case "model×kind", "model-kind", "model+kind", "model*kind":
		return ByModelKind, nil
	}
	return "", fmt.Errorf("study: compare: group by %q, want kind, model or model-kind", s)
}

// Config says what Compare reports. The zero value compares the
// first learned policy with every fixed protocol over all rows.
type Config struct {
	// By breaks the rows down by kind, model or model×kind, after the
	// pooled scope "all".
	By By
	// Policy is the policy whose paired differences are reported; "" is
	// the first learned policy (a row with a λ).
	Policy string
	// Against are the policies Policy is compared with, paired by task
	// and seed; nil is every fixed protocol (no λ, not the oracle).
	Against []string
	// Pair, when set, is another study whose rows pair with the compared
	// rows by transcript file, task and seed (ComparePair) — not by task
	// index, which another set of files numbers otherwise; a row without a
	// partner is an error.
	Pair *Results
	// PairAgainst are the policies of Pair that Policy is compared with;
	// nil pairs every policy the two have in common with itself.
	PairAgainst []string
	// Ceilings are the groups of the hindsight ceilings: per group the
	// fixed protocol of Among with the best accuracy on these very rows,
	// an upper bound of a policy that picks one protocol per group.
	Ceilings []By
	// Among are the fixed protocols a ceiling chooses from; nil is every
	// fixed protocol of the rows.
	Among []string
	// Bootstrap configures the intervals; the zero value is the study's
	// default (DefaultConfig().Bootstrap), so that the intervals are
	// report.md's.
	Bootstrap stats.Bootstrap
}

// CrossDiff is "Policy in the compared rows − Other in the paired study"
// over the rows that pair (same transcript file, task and seed).
type CrossDiff struct {
	Policy   string         `json:"policy"`
	Other    string         `json:"other"`
	Rows     int            `json:"rows"` // pairs with both scored
	Accuracy stats.Interval `json:"accuracy"`
	Tokens   float64        `json:"tokens_per_task"`
}

// Scope is the comparison over one group of rows ("all" or a kind,
// a model, a model × kind).
type Scope struct {
	Name     string              `json:"name"`
	Rows     int                 `json:"rows"` // task × seed rows
	Policies []study.PolicyStats `json:"policies"`
	Diffs    []study.Diff        `json:"diffs"`
	Paired   []CrossDiff         `json:"paired,omitempty"`
}

// Choice is a ceiling's protocol for one group.
type Choice struct {
	Group    string  `json:"group"`
	Protocol string  `json:"protocol"`
	Rows     int     `json:"rows"`
	Accuracy float64 `json:"accuracy"`
}

// Ceiling is the group-conditioned fixed protocol: per group (model, kind
// or model × kind) the fixed protocol with the best accuracy on the
// compared rows themselves, chosen in hindsight — an upper bound of a
// policy that picks one protocol per group, not a policy. Diffs are the
// ceiling − each of Config.Against, then Policy − the ceiling, paired
// by task and seed.
type Ceiling struct {
	By       By             `json:"by"`
	Name     string         `json:"name"`
	Among    []string       `json:"among"`
	Choices  []Choice       `json:"choices"`
	Rows     int            `json:"rows"`
	Accuracy stats.Interval `json:"accuracy"`
	Tokens   float64        `json:"tokens_per_task"`
	Diffs    []study.Diff   `json:"diffs"`
}

// Comparison is what Compare found.
type Comparison struct {
	Inputs    []string        `json:"inputs"`
	InputRows []int           `json:"input_rows"`
	Paired    string          `json:"paired,omitempty"`
	PairedOff int             `json:"paired_rows_unused,omitempty"` // task × seed rows of the paired study no compared row pairs with
	By        By              `json:"by"`
	Policy    string          `json:"policy"`
	Against   []string        `json:"against"`
	Rows      int             `json:"rows"` // task × seed rows, pooled
	Questions int             `json:"questions"`
	Bootstrap stats.Bootstrap `json:"bootstrap"`
	Scopes    []Scope         `json:"scopes"`
	Ceilings  []Ceiling       `json:"ceilings,omitempty"`
}

// pairKey names a task × seed row across studies: the transcript file, the
// task id (its question's hash), the seed, and the occurrence of that task
// id in that file (a file may hold a question twice). A task's index is
// not in it: it is the task's number in the study's Env, which another
// set of files numbers otherwise.
type pairKey struct {
	file, task string
	seed       uint64
	occ        int
}

// unitRow is one task × seed with each policy's row.
type unitRow struct {
	key         pairKey
	in, index   int // input and task index: the order of the rows
	model, kind string
	cluster     string // the task id: one question, one cluster
	by          map[string]*study.ResultRow
	name        string // input name, for errors
}

// rowsByKey indexes the rows of several studies by pairKey, in the order
// (input, task index, seed). Inputs are pooled: a task × seed × policy in
// two inputs is an error.
func rowsByKey(inputs []*Results) ([]*unitRow, map[pairKey]*unitRow, []string, error) {
	index := map[pairKey]*unitRow{}
	var units []*unitRow
	var policies []string
	for in, res := range inputs {
		type group struct {
			file, task, policy string
			seed               uint64
		}
		occ := map[group][]int{} // task indices, ascending
		for _, r := range res.Rows {
			g := group{r.File, r.Task, r.Policy, r.Seed}
			occ[g] = append(occ[g], r.Index)
		}
		for _, v := range occ {
			slices.Sort(v)
		}
		for i := range res.Rows {
			r := &res.Rows[i]
			if !slices.Contains(policies, r.Policy) {
				policies = append(policies, r.Policy)
			}
			o, _ := slices.BinarySearch(occ[group{r.File, r.Task, r.Policy, r.Seed}], r.Index)
			k := pairKey{r.File, r.Task, r.Seed, o}
			u := index[k]
			if u == nil {
				kind, _, _ := strings.Cut(r.Task, ":")
				u = &unitRow{key: k, in: in, index: r.Index, model: r.Model, kind: kind, cluster: r.Task, by: map[string]*study.ResultRow{}, name: res.Name}
				index[k] = u
				units = append(units, u)
			}
			if _, dup := u.by[r.Policy]; dup {
				return nil, nil, nil, fmt.Errorf("study: compare: %s and %s both hold policy %q for %s task %s seed %d: pooled studies must hold distinct rows",
					u.name, res.Name, r.Policy, fileOr(r.File), r.Task, r.Seed)
			}
			u.by[r.Policy] = r
		}
	}
	slices.SortFunc(units, func(a, b *unitRow) int {
		return cmp.Or(cmp.Compare(a.in, b.in), cmp.Compare(a.index, b.index), cmp.Compare(a.key.seed, b.key.seed))
	})
	return units, index, policies, nil
}

func fileOr(f string) string {
	if f == "" {
		return "(no file)"
	}
	return "file " + f
}

// groupOf names u's group under by.
func groupOf(u *unitRow, by By) string {
	model, kind := u.model, u.kind
	if model == "" {
		model = "unknown"
	}
	if kind == "" {
		kind = "unknown"
	}
	switch by {
	case ByKind:
		return kind
	case ByModel:
		return model
	case ByModelKind:
		return model + " × " + kind
	}
	return "all"
}

// Compare pools the rows of one or more studies (their results.json, read
// by ReadResults) and reports, over all rows and per group of cfg.By, each
// policy's accuracy with the bootstrap interval resampled by question
// (the task id), tokens per task and action shares; cfg.Policy − each of
// cfg.Against paired by task and seed; with cfg.Pair, cfg.Policy (or each
// common policy) − its partner in the paired study, paired by transcript
// file, task and seed; and the hindsight ceilings of cfg.Ceilings.
//
// On one study's rows the pooled policies' numbers are its report.md's
// (same rows in the same order, same bootstrap; the task id stands for the
// question, the study's unit, which it equals unless a question's text
// differs between files in case or white space only). The same inputs and
// config give the same Comparison.
func Compare(inputs []*Results, cfg Config) (*Comparison, error) {
	if len(inputs) == 0 {
		return nil, fmt.Errorf("study: compare: no results to compare")
	}
	if cfg.Bootstrap == (stats.Bootstrap{}) {
		cfg.Bootstrap = study.DefaultConfig().Bootstrap
	}
	units, _, policies, err := rowsByKey(inputs)
	if err != nil {
		return nil, err
	}
	if cfg, err = comparedPolicies(cfg, units, policies); err != nil {
		return nil, err
	}
	c := &Comparison{By: cfg.By, Policy: cfg.Policy, Against: cfg.Against, Rows: len(units), Bootstrap: cfg.Bootstrap}
	for _, in := range inputs {
		c.Inputs = append(c.Inputs, in.Name)
		c.InputRows = append(c.InputRows, len(in.Rows))
	}
	questions := map[string]bool{}
	for _, u := range units {
		questions[u.cluster] = true
	}
	c.Questions = len(questions)

	var pairs [][2]string
	var partner map[pairKey]*unitRow
	if cfg.Pair != nil {
		if pairs, partner, err = pairWith(c, cfg, units, policies); err != nil {
			return nil, err
		}
	}
	for _, g := range compareGroups(units, cfg.By) {
		var sel []*unitRow
		for _, u := range units {
			if g == "all" || groupOf(u, cfg.By) == g {
				sel = append(sel, u)
			}
		}
		sc, err := compareScope(g, sel, policies, pairs, partner, cfg)
		if err != nil {
			return nil, err
		}
		c.Scopes = append(c.Scopes, sc)
	}
	for _, by := range cfg.Ceilings {
		if by == Overall {
			continue
		}
		ce, err := ceiling(units, by, cfg)
		if err != nil {
			return nil, err
		}
		c.Ceilings = append(c.Ceilings, ce)
	}
	return c, nil
}

// comparedPolicies fills in cfg's policy (the first learned one), the
// policies it is compared against (every other fixed protocol) and those
// the ceiling picks among (every fixed protocol), and refuses a policy
// not in the rows.
func comparedPolicies(cfg Config, units []*unitRow, policies []string) (Config, error) {
	var fixed, learned []string
	for _, p := range policies {
		switch {
		case p == study.OracleName:
		case isLearned(units, p):
			learned = append(learned, p)
		default:
			fixed = append(fixed, p)
		}
	}
	if cfg.Policy == "" {
		if len(learned) == 0 {
			return cfg, fmt.Errorf("study: compare: no learned policy in the rows; name one (policies: %s)", strings.Join(policies, ", "))
		}
		cfg.Policy = learned[0]
	}
	if cfg.Against == nil {
		cfg.Against = slices.DeleteFunc(slices.Clone(fixed), func(p string) bool { return p == cfg.Policy })
	}
	if cfg.Among == nil {
		cfg.Among = fixed
	}
	for _, p := range slices.Concat([]string{cfg.Policy}, cfg.Against, cfg.Among) {
		if !slices.Contains(policies, p) {
			return cfg, fmt.Errorf("study: compare: policy %q not in the rows (policies: %s)", p, strings.Join(policies, ", "))
		}
	}
	return cfg, nil
}

// pairWith reads cfg.Pair, the study the rows are paired with: the pairs
// of policies compared across the two (each policy with itself, or
// cfg.Policy with each of cfg.PairAgainst) and the partner row of each
// unit; it records in c the paired study's name and its rows left
// unpaired.
func pairWith(c *Comparison, cfg Config, units []*unitRow, policies []string) ([][2]string, map[pairKey]*unitRow, error) {
	c.Paired = cfg.Pair.Name
	punits, partner, pol, err := rowsByKey([]*Results{cfg.Pair})
	if err != nil {
		return nil, nil, err
	}
	var pairs [][2]string
	if cfg.PairAgainst == nil {
		for _, p := range policies {
			if slices.Contains(pol, p) {
				pairs = append(pairs, [2]string{p, p})
			}
		}
		if len(pairs) == 0 {
			return nil, nil, fmt.Errorf("study: compare: %s has no policy in common with the compared rows", cfg.Pair.Name)
		}
	}
	for _, q := range cfg.PairAgainst {
		if !slices.Contains(pol, q) {
			return nil, nil, fmt.Errorf("study: compare: policy %q not in %s (policies: %s)", q, cfg.Pair.Name, strings.Join(pol, ", "))
		}
		pairs = append(pairs, [2]string{cfg.Policy, q})
	}
	used, err := checkPairs(units, partner, pairs, cfg.Pair.Name)
	if err != nil {
		return nil, nil, err
	}
	for _, u := range punits {
		if !used[u.key] {
			c.PairedOff++
		}
	}
	return pairs, partner, nil
}

// compareGroups are the scopes of a comparison: "all", then each group of
// the rows by by, sorted.
func compareGroups(units []*unitRow, by By) []string {
	groups := []string{"all"}
	if by != Overall {
		var gs []string
		for _, u := range units {
			if g := groupOf(u, by); !slices.Contains(gs, g) {
				gs = append(gs, g)
			}
		}
		slices.Sort(gs)
		groups = append(groups, gs...)
	}
	return groups
}

// compareScope is one scope's table: each policy's accuracy and tokens on
// sel, cfg.Policy's paired differences against cfg.Against, and the pairs
// across the paired study.
func compareScope(g string, sel []*unitRow, policies []string, pairs [][2]string, partner map[pairKey]*unitRow, cfg Config) (Scope, error) {
	sc := Scope{Name: g, Rows: len(sel)}
	for _, p := range policies {
		ps, ok, err := policyStats(sel, p, cfg.Bootstrap)
		if err != nil {
			return sc, fmt.Errorf("study: compare: %s: %w", g, err)
		}
		if ok {
			sc.Policies = append(sc.Policies, ps)
		}
	}
	for _, o := range cfg.Against {
		d, ok, err := pairedDiff(sel, cfg.Policy, o, cfg.Bootstrap, nil)
		if err != nil {
			return sc, fmt.Errorf("study: compare: %s: %w", g, err)
		}
		if ok {
			sc.Diffs = append(sc.Diffs, d.Diff)
		}
	}
	for _, pq := range pairs {
		d, ok, err := pairedDiff(sel, pq[0], pq[1], cfg.Bootstrap, func(u *unitRow, _ string) *study.ResultRow {
			if v := partner[u.key]; v != nil {
				return v.by[pq[1]]
			}
			return nil
		})
		if err != nil {
			return sc, fmt.Errorf("study: compare: %s: paired with %s: %w", g, cfg.Pair.Name, err)
		}
		if ok {
			sc.Paired = append(sc.Paired, CrossDiff{Policy: pq[0], Other: pq[1], Rows: d.rows, Accuracy: d.Accuracy, Tokens: d.Tokens})
		}
	}
	return sc, nil
}

// isLearned reports whether p's rows carry a λ.
func isLearned(units []*unitRow, p string) bool {
	for _, u := range units {
		if r := u.by[p]; r != nil {
			return r.Lambda != nil
		}
	}
	return false
}

// checkPairs checks that every compared row of each pair's first policy
// has a partner row of its second policy in the paired study, and returns
// the paired study's rows used.
func checkPairs(units []*unitRow, partner map[pairKey]*unitRow, pairs [][2]string, name string) (map[pairKey]bool, error) {
	used := map[pairKey]bool{}
	for _, pq := range pairs {
		n := 0
		for _, u := range units {
			if u.by[pq[0]] == nil {
				continue
			}
			n++
			v := partner[u.key]
			if v == nil || v.by[pq[1]] == nil {
				return nil, fmt.Errorf("study: compare: rows do not pair: %s task %s seed %d (policy %q, in %s) has no %q row in %s — studies of other tasks or seeds",
					fileOr(u.key.file), u.key.task, u.key.seed, pq[0], u.name, pq[1], name)
			}
			used[u.key] = true
		}
		if n == 0 {
			return nil, fmt.Errorf("study: compare: no %q rows to pair with %s", pq[0], name)
		}
	}
	return used, nil
}

// policyStats pools p's rows among units (ok false when it has none).
func policyStats(units []*unitRow, p string, b stats.Bootstrap) (study.PolicyStats, bool, error) {
	ps := study.PolicyStats{Policy: p, Oracle: p == study.OracleName}
	var t study.PolicyTally
	label := map[string]int{}
	tasks, qs := map[pairKey]bool{}, map[string]bool{}
	found := false
	for _, u := range units {
		r := u.by[p]
		if r == nil {
			continue
		}
		found = true
		if !ps.Oracle {
			ps.Lambda = r.Lambda
		}
		if !t.Add(r) {
			continue
		}
		t.Cluster(clusterLabel(label, u.cluster))
		k := u.key
		k.seed = 0
		tasks[k], qs[u.cluster] = true, true
	}
	if !found {
		return ps, false, nil
	}
	ps.Tasks, ps.Units = len(tasks), len(qs)
	if err := t.Fill(&ps, b); err != nil {
		return ps, false, fmt.Errorf("%s: %w", p, err)
	}
	return ps, true, nil
}

func clusterLabel(label map[string]int, c string) int {
	k, ok := label[c]
	if !ok {
		k = len(label)
		label[c] = k
	}
	return k
}

// countedDiff is a Diff with the number of scored pairs.
type countedDiff struct {
	study.Diff
	rows int
}

// pairedDiff is "p − o" over units holding both (o's row found by other
// when set, else in the same unit): accuracy over the pairs both scored,
// tokens per task over all pairs, as report.md's differences.
func pairedDiff(units []*unitRow, p, o string, b stats.Bootstrap, other func(*unitRow, string) *study.ResultRow) (countedDiff, bool, error) {
	var x, y, dt []float64
	var cl []int
	label := map[string]int{}
	for _, u := range units {
		a := u.by[p]
		var r *study.ResultRow
		if other != nil {
			r = other(u, o)
		} else {
			r = u.by[o]
		}
		if a == nil || r == nil {
			continue
		}
		dt = append(dt, a.TokensPerEpisode()-r.TokensPerEpisode())
		if a.Scored == 0 || r.Scored == 0 {
			continue
		}
		x = append(x, a.Accuracy())
		y = append(y, r.Accuracy())
		cl = append(cl, clusterLabel(label, u.cluster))
	}
	if len(x) == 0 {
		return countedDiff{}, false, nil
	}
	iv, err := b.PairedDiff(x, y, cl)
	if err != nil {
		return countedDiff{}, false, fmt.Errorf("%s − %s: %w", p, o, err)
	}
	var sum float64
	for _, v := range dt {
		sum += v
	}
	return countedDiff{study.Diff{Learned: p, Other: o, Accuracy: iv, Tokens: sum / float64(len(dt))}, len(x)}, true, nil
}

// CeilingName names the ceiling conditioned on by.
func CeilingName(by By) string {
	return "best fixed protocol per " + string(by) + " (hindsight)"
}

// ceiling chooses, per group of by, the protocol of cfg.Among with the
// best mean accuracy on the group's scored rows (fewer tokens per task on
// a tie, then the first in Among), and scores that choice as one policy.
func ceiling(units []*unitRow, by By, cfg Config) (Ceiling, error) {
	name := CeilingName(by)
	ce := Ceiling{By: by, Name: name, Among: cfg.Among}
	if len(cfg.Among) == 0 {
		return ce, fmt.Errorf("study: compare: %s: no fixed protocol to choose from", name)
	}
	var groups []string
	members := map[string][]*unitRow{}
	for _, u := range units {
		g := groupOf(u, by)
		if members[g] == nil {
			groups = append(groups, g)
		}
		members[g] = append(members[g], u)
	}
	slices.Sort(groups)
	choice := map[string]string{}
	for _, g := range groups {
		best := Choice{Group: g}
		bestTok := 0.0
		for _, p := range cfg.Among {
			var s, tok float64
			n, m := 0, 0
			for _, u := range members[g] {
				r := u.by[p]
				if r == nil {
					continue
				}
				tok += r.TokensPerEpisode()
				m++
				if r.Scored > 0 {
					s += r.Accuracy()
					n++
				}
			}
			if n == 0 {
				continue
			}
			a, t := s/float64(n), tok/float64(m)
			if best.Protocol == "" || a > best.Accuracy || a == best.Accuracy && t < bestTok {
				best = Choice{Group: g, Protocol: p, Rows: n, Accuracy: a}
				bestTok = t
			}
		}
		if best.Protocol == "" {
			continue // no scored row in the group: nothing to choose on
		}
		choice[g] = best.Protocol
		ce.Choices = append(ce.Choices, best)
	}
	// The ceiling as a policy: each unit gets its group's chosen row.
	const self = "\x00ceiling"
	var sel []*unitRow
	for _, u := range units {
		p, ok := choice[groupOf(u, by)]
		if !ok || u.by[p] == nil {
			continue
		}
		v := *u
		v.by = maps.Clone(u.by)
		v.by[self] = u.by[p]
		sel = append(sel, &v)
	}
	ps, ok, err := policyStats(sel, self, cfg.Bootstrap)
	if err != nil || !ok {
		return ce, fmt.Errorf("study: compare: %s: no rows (%v)", name, err)
	}
	ce.Rows, ce.Accuracy, ce.Tokens = ps.Rows, ps.Accuracy, ps.TokensPerTask
	add := func(p, o string) error {
		d, ok, err := pairedDiff(sel, p, o, cfg.Bootstrap, nil)
		if err != nil {
			return fmt.Errorf("study: compare: %s: %w", name, err)
		}
		if ok {
			for _, s := range []*string{&d.Learned, &d.Other} {
				if *s == self {
					*s = name
				}
			}
			ce.Diffs = append(ce.Diffs, d.Diff)
		}
		return nil
	}
	for _, o := range cfg.Against {
		if err := add(self, o); err != nil {
			return ce, err
		}
	}
	if !slices.Contains(cfg.Against, cfg.Policy) {
		if err := add(cfg.Policy, self); err != nil {
			return ce, err
		}
	}
	return ce, nil
}
