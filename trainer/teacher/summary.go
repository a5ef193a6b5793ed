package teacher

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/mpdf/mpdf/env"
	"github.com/mpdf/mpdf/metapolicy"
)

// Point is a protocol's accuracy and mean tokens per task over a group.
type Point struct {
	Accuracy float64 `json:"accuracy"`
	Tokens   float64 `json:"tokens_per_task"`
}

// Summary compares the hindsight optimum of a group of tasks with the two
// fixed protocols that bracket it: everyone persisting (round-0 majority)
// and everyone refining (the debate).
type Summary struct {
	Group    string  `json:"group"`
	Tasks    int     `json:"tasks"`
	Lambda   float64 `json:"lambda"`
	Oracle   Point   `json:"hindsight"`
	Majority Point   `json:"majority"`
	Debate   Point   `json:"debate"`
	// Actions are the shares of persist, refine and concede in the
	// optimal plans' decisions.
	Actions    [metapolicy.NumActions]float64 `json:"actions"`
	Exhaustive int                            `json:"exhaustive"` // tasks searched exhaustively
}

// Summarize tallies results by group (group(task) names a task's group;
// nil puts all in one) and adds a pooled row "all" last when there is more
// than one group. The fixed protocols are played with Play (seed as in
// Search) over the same rounds as the plans.
func Summarize(e env.Env, results []Result, lambda float64, seed uint64, group func(task int) string) ([]Summary, error) {
	type acc struct {
		s                    Summary
		oc, mc, dc           int
		ot, mt, dt, decision int
		acts                 [metapolicy.NumActions]int
	}
	var order []string
	byGroup := map[string]*acc{}
	all := &acc{s: Summary{Group: "all", Lambda: lambda}}
	for _, r := range results {
		name := "all"
		if group != nil {
			name = group(r.Task)
		}
		a := byGroup[name]
		if a == nil {
			a = &acc{s: Summary{Group: name, Lambda: lambda}}
			byGroup[name] = a
			order = append(order, name)
		}
		n := 0 // agents; a task that recorded no round after round 0 has an empty plan
		if len(r.Plan) > 0 {
			n = len(r.Plan[0])
		}
		var fixed [2]struct {
			ok  bool
			tok int
		}
		for k, act := range []metapolicy.Action{metapolicy.Persist, metapolicy.Refine} {
			ep, err := Play(e, r.Task, seed, Uniform(n, r.Plan.Rounds(), act))
			if err != nil {
				return nil, err
			}
			fixed[k].ok, fixed[k].tok = Outcome(ep)
		}
		for _, x := range []*acc{a, all} {
			x.s.Tasks++
			if r.Exhaustive {
				x.s.Exhaustive++
			}
			x.oc += b2i(r.Correct)
			x.ot += r.Tokens
			x.mc += b2i(fixed[0].ok)
			x.mt += fixed[0].tok
			x.dc += b2i(fixed[1].ok)
			x.dt += fixed[1].tok
			for _, row := range r.Plan {
				for _, act := range row {
					x.acts[act]++
					x.decision++
				}
			}
		}
	}
	finish := func(x *acc) Summary {
		n := float64(max(1, x.s.Tasks))
		x.s.Oracle = Point{float64(x.oc) / n, float64(x.ot) / n}
		x.s.Majority = Point{float64(x.mc) / n, float64(x.mt) / n}
		x.s.Debate = Point{float64(x.dc) / n, float64(x.dt) / n}
		for k, c := range x.acts {
			x.s.Actions[k] = float64(c) / float64(max(1, x.decision))
		}
		return x.s
	}
	var out []Summary
	for _, name := range order {
		out = append(out, finish(byGroup[name]))
	}
	if len(order) > 1 || len(order) == 0 {
		out = append(out, finish(all))
	}
	return out, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// WriteSummaries writes summaries as an aligned table.
func WriteSummaries(w io.Writer, ss []Summary) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "group\tλ\ttasks\tmajority\ttokens\tdebate\ttokens\thindsight\ttokens\tpersist\trefine\tconcede\texhaustive")
	for _, s := range ss {
		fmt.Fprintf(tw, "%s\t%g\t%d\t%.3f\t%.0f\t%.3f\t%.0f\t%.3f\t%.0f\t%.2f\t%.2f\t%.2f\t%d\n",
			s.Group, s.Lambda, s.Tasks, s.Majority.Accuracy, s.Majority.Tokens, s.Debate.Accuracy, s.Debate.Tokens,
			s.Oracle.Accuracy, s.Oracle.Tokens, s.Actions[0], s.Actions[1], s.Actions[2], s.Exhaustive)
	}
	return tw.Flush()
}
