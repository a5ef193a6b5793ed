package signals

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"github.com/mpdf/mpdf/data"
	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
	"github.com/mpdf/mpdf/stats"
	"github.com/mpdf/mpdf/stats/correctness"
	"github.com/mpdf/mpdf/trainer/teacher"
)

// Targets Measure ranks features against, in report order.
const (
	TargetCorrect = iota // own current answer is the gold
	TargetFix            // refining (vs persisting) makes the team answer correct
	TargetBreak          // refining (vs persisting) makes a correct team answer wrong
	// TargetFixPivotal is fix, among the pivotal decisions only (those
	// where refining rather than persisting changes whether the team is
	// right): can the feature tell a fix from a break?
	TargetFixPivotal
	NumTargets
)

// TargetNames name the targets in reports.
var TargetNames = [NumTargets]string{"correct", "fix", "break", "fix|pivotal"}

// Subsets of decisions.
const (
	SubsetAll       = iota // every decision with a gold answer
	SubsetContested        // the team is not unanimous on one readable answer
	NumSubsets
)

// SubsetNames name the subsets in reports.
var SubsetNames = [NumSubsets]string{"all", "contested"}

// Options says which decisions Measure looks at.
type Options struct {
	// Tasks lists the tasks to play; nil plays them all.
	Tasks []int
	// Rounds is the number of deliberation rounds (> 0).
	Rounds int
	// Episodes per task (> 0 for a sampling policy; 0 means 1).
	Episodes int
	// Seed of env.Play.
	Seed uint64
	// Workers of env.Play (0: GOMAXPROCS).
	Workers int
}

// FeatureRow is one feature's AUCs: AUC[target][subset], NaN when a class is empty.
type FeatureRow struct {
	Feature string                          `json:"feature"`
	Doc     string                          `json:"doc"`
	AUC     [NumTargets][NumSubsets]float64 `json:"-"`
}

// MarshalJSON writes the AUCs by target and subset name (NaN as null).
func (r FeatureRow) MarshalJSON() ([]byte, error) {
	m := map[string]any{"feature": r.Feature, "doc": r.Doc}
	for t := range NumTargets {
		for s := range NumSubsets {
			var v any
			if !math.IsNaN(r.AUC[t][s]) {
				v = r.AUC[t][s]
			}
			m["auc_"+TargetNames[t]+"_"+SubsetNames[s]] = v
		}
	}
	return json.Marshal(m)
}

// Report is the result of Measure.
type Report struct {
	Env       string          `json:"env"`
	Policy    string          `json:"policy"`
	Episodes  int             `json:"episodes"`
	NoGold    int             `json:"no_gold"` // episodes without a gold answer, not measured
	Decisions [NumSubsets]int `json:"-"`       // by subset
	// Positives[target][subset] counts the decisions whose target holds.
	Positives [NumTargets][NumSubsets]int `json:"-"`
	Rows      []FeatureRow                `json:"features"`
}

// MarshalJSON flattens the counts by name.
func (r *Report) MarshalJSON() ([]byte, error) {
	counts := map[string]int{}
	for s := range NumSubsets {
		counts["decisions_"+SubsetNames[s]] = r.Decisions[s]
		for t := range NumTargets {
			counts[TargetNames[t]+"_"+SubsetNames[s]] = r.Positives[t][s]
		}
	}
	type plain Report
	return json.Marshal(struct {
		*plain
		Counts map[string]int `json:"counts"`
	}{(*plain)(r), counts})
}

// planOf returns the actions ep's behaviour took, rounds 1..len−1.
func planOf(ep *data.Episode) teacher.Plan {
	p := make(teacher.Plan, len(ep.Rounds)-1)
	for t := range p {
		row := ep.Rounds[t+1].Turns
		p[t] = make([]metapolicy.Action, len(row))
		for i := range row {
			p[t][i] = *row[i].Action
		}
	}
	return p
}

// sameAnswers reports whether a and b hold the same answers in every round.
func sameAnswers(a, b *data.Episode) bool {
	if len(a.Rounds) != len(b.Rounds) {
		return false
	}
	for t := range a.Rounds {
		for i := range a.Rounds[t].Turns {
			if a.Rounds[t].Turns[i].Answer != b.Rounds[t].Turns[i].Answer {
				return false
			}
		}
	}
	return true
}

// teamAfter plays plan truncated to round t and returns the team answer of
// round t.
func teamAfter(e env.Env, task int, plan teacher.Plan, t int) (string, error) {
	ep, err := teacher.Play(e, task, 0, plan[:t])
	if err != nil {
		return "", err
	}
	return data.TeamAnswer(ep.Rounds[t].Turns), nil
}

// Measure plays pol on e and reports every candidate's AUC for each target
// (see the package doc). It returns an error when e does not replay the
// behaviour's actions to the same answers.
func Measure(e env.Env, pol metapolicy.Policy, o Options, cands []Candidate) (*Report, error) {
	if o.Rounds <= 0 {
		return nil, fmt.Errorf("signals: rounds %d, want > 0", o.Rounds)
	}
	tasks := o.Tasks
	if tasks == nil {
		tasks = make([]int, e.NumTasks())
		for i := range tasks {
			tasks[i] = i
		}
	}
	eps := max(1, o.Episodes)
	rep := &Report{Env: e.Name(), Policy: pol.Name()}
	m := measured{values: make([][]float64, len(cands))}
	k := 0
	v1 := make([]float64, metapolicy.FeatureWidth)
	err := env.Play(e, pol, env.RunOptions{Tasks: tasks, Episodes: eps, Rounds: o.Rounds, Seed: o.Seed, Workers: o.Workers},
		func(ep *data.Episode) error {
			task := tasks[k/eps]
			k++
			rep.Episodes++
			if ep.Gold == "" {
				rep.NoGold++
				return nil
			}
			plan := planOf(ep)
			again, err := teacher.Play(e, task, 0, plan)
			if err != nil {
				return err
			}
			if !sameAnswers(ep, again) {
				return fmt.Errorf("signals: %s: task %s: replaying the episode's actions gave other answers: the environment is not deterministic for a plan", e.Name(), ep.Task)
			}
			var prevAns []string
			isContested := false
			return correctness.EachDecision(ep, v1, func(t, i int, _ *metapolicy.Observation) error {
				if i == 0 {
					prevAns = answers(ep, t-1)
					isContested = len(votes(prevAns)) != 1 || slices.Contains(prevAns, "")
				}
				d := Decision{Ep: ep, Round: t, Agent: i, V1: v1}
				for c := range cands {
					m.values[c] = append(m.values[c], cands[c].Value(&d))
				}
				lab, err := decisionLabels(e, task, ep, plan, t, i, prevAns[i])
				if err != nil {
					return err
				}
				m.labels = append(m.labels, lab)
				m.contested = append(m.contested, isContested)
				m.pivotal = append(m.pivotal, lab[TargetFix] || lab[TargetBreak])
				return nil
			})
		})
	if err != nil {
		return nil, err
	}
	m.count(rep)
	rep.Rows = m.rows(cands)
	return rep, nil
}

// decisionLabels are the targets of agent i's decision in round t of ep
// (task's, played by plan), prev its answer before it: correct, and, from
// the team answer after the round with the agent refining and persisting
// (the other replayed from a fresh Start), fix, break and fix|pivotal.
func decisionLabels(e env.Env, task int, ep *data.Episode, plan teacher.Plan, t, i int, prev string) ([NumTargets]bool, error) {
	var lab [NumTargets]bool
	lab[TargetCorrect] = prev == ep.Gold
	var team [2]string // refine, persist
	for a, act := range []metapolicy.Action{metapolicy.Refine, metapolicy.Persist} {
		if *ep.Rounds[t].Turns[i].Action == act {
			team[a] = data.TeamAnswer(ep.Rounds[t].Turns)
			continue
		}
		alt := plan.Clone()
		alt[t-1][i] = act
		var err error
		if team[a], err = teamAfter(e, task, alt, t); err != nil {
			return lab, err
		}
	}
	lab[TargetFix] = team[0] == ep.Gold && team[1] != ep.Gold
	lab[TargetBreak] = team[0] != ep.Gold && team[1] == ep.Gold
	lab[TargetFixPivotal] = lab[TargetFix]
	return lab, nil
}

// measured is what Measure gathers, one entry per decision: each
// candidate's value, the targets, and whether the decision is contested
// and pivotal.
type measured struct {
	values             [][]float64
	labels             [][NumTargets]bool
	contested, pivotal []bool
}

// count fills in rep's decisions and positives per target and subset.
func (m *measured) count(rep *Report) {
	for j, lab := range m.labels {
		for s := range NumSubsets {
			if s == SubsetContested && !m.contested[j] {
				continue
			}
			rep.Decisions[s]++
			for t := range NumTargets {
				if t == TargetFixPivotal && !m.pivotal[j] {
					continue
				}
				if lab[t] {
					rep.Positives[t][s]++
				}
			}
		}
	}
}

// rows are the candidates' AUCs for each target and subset.
func (m *measured) rows(cands []Candidate) []FeatureRow {
	var rows []FeatureRow
	for c, cand := range cands {
		row := FeatureRow{Feature: cand.Name, Doc: cand.Doc}
		for t := range NumTargets {
			for s := range NumSubsets {
				var xs []float64
				var ys []bool
				for j, lab := range m.labels {
					if s == SubsetContested && !m.contested[j] || t == TargetFixPivotal && !m.pivotal[j] {
						continue
					}
					xs = append(xs, m.values[c][j])
					ys = append(ys, lab[t])
				}
				row.AUC[t][s] = AUC(xs, ys)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// AUC is stats.AUC: NaN without a positive or a negative, or with a NaN score.
func AUC(xs []float64, ys []bool) float64 { return stats.AUC(xs, ys) }

// WriteTable writes the report as an aligned table, one row per feature in
// the order measured, with the decision counts above.
func (r *Report) WriteTable(w io.Writer) error {
	name := r.Env
	if len(name) > 72 {
		name = name[:69] + "..."
	}
	fmt.Fprintf(w, "signal of state features on %s, behaviour %s: %d episodes (%d without gold, skipped)\n",
		name, r.Policy, r.Episodes, r.NoGold)
	for s := range NumSubsets {
		fmt.Fprintf(w, "  %-9s decisions %6d:", SubsetNames[s], r.Decisions[s])
		for t := range TargetFixPivotal {
			fmt.Fprintf(w, "  %s %d (%.1f%%)", TargetNames[t], r.Positives[t][s], 100*float64(r.Positives[t][s])/float64(max(1, r.Decisions[s])))
		}
		fmt.Fprintln(w)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprint(tw, "feature")
	for t := range NumTargets {
		for s := range NumSubsets {
			fmt.Fprintf(tw, "\t%s/%s", TargetNames[t], SubsetNames[s])
		}
	}
	fmt.Fprintln(tw, "\tmeaning")
	for _, row := range r.Rows {
		fmt.Fprint(tw, row.Feature)
		for t := range NumTargets {
			for s := range NumSubsets {
				if v := row.AUC[t][s]; math.IsNaN(v) {
					fmt.Fprint(tw, "\t-")
				} else {
					fmt.Fprintf(tw, "\t%.3f", v)
				}
			}
		}
		fmt.Fprintf(tw, "\t%s\n", row.Doc)
	}
	return tw.Flush()
}
